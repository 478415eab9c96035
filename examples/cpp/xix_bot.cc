// A XIX bot in C++, written from the .proto files and docs/bots.md alone (no SDK).
//
// In XIX it plays by two rules of thumb: take a trick with the cheapest card that wins it, else
// throw the lowest; draft the most extreme card; everything else is the first legal action. It
// plays the other games too, by a random legal action, so that it can enter any contest.
// It opens CROUPIER_SESSIONS sessions at once (one thread each) to the referee at
// CROUPIER_ADDRESS with the token CROUPIER_TOKEN, reconnects when a stream breaks, and exits
// with code 0 once every session has ended with Goodbye.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "croupier/v1/referee.grpc.pb.h"

namespace v1 = croupier::v1;

namespace {

constexpr unsigned kTarget = 19;  // XIX: two cards summing to 19 reverse the trick.

std::string env(const char* name, const std::string& fallback = "") {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

// True if `follow` takes the trick that `lead` led (XIX-R6: a pair summing to 19 reverses).
bool takes(unsigned lead, unsigned follow) {
  return lead + follow == kTarget ? follow < lead : follow > lead;
}

// The games it plays: XIX by its rules of thumb, the others at random.
const char* const kGames[] = {"xix", "xactika", "xeri", "textactoe"};

// A random legal action's index, for the games other than XIX.
int any(int count) {
  thread_local std::mt19937 generator{std::random_device{}()};
  return std::uniform_int_distribution<int>(0, count - 1)(generator);
}

// The index of the legal action to play.
int choose(const v1::ActionRequest& request) {
  const auto& actions = request.legal_actions();
  if (!request.observation().has_xix()) return any(actions.size());
  const auto& obs = request.observation().xix();
  const auto kind = actions[0].xix().kind_case();
  if (kind == v1::XixAction::kPlay) {
    int best = 0;
    bool winning = false;
    for (int i = 0; i < actions.size(); ++i) {
      unsigned card = actions[i].xix().play();
      bool wins = obs.trick_size() > 0 && takes(obs.trick(0), card);
      unsigned current = actions[best].xix().play();
      if ((wins && !winning) || (wins == winning && card < current)) {
        best = i;
        winning = wins;
      }
    }
    return best;
  }
  if (kind == v1::XixAction::kDraft) {
    int best = 0;
    auto extreme = [](unsigned card) { return card > 9 ? card - 9 : 10 - card; };
    for (int i = 1; i < actions.size(); ++i) {
      if (extreme(actions[i].xix().draft()) > extreme(actions[best].xix().draft())) best = i;
    }
    return best;
  }
  return 0;
}

enum class Ending { kGoodbye, kLost, kRefused };

// One Play call: Hello, then answer every ActionRequest until Goodbye or a broken stream.
Ending play(const std::shared_ptr<grpc::Channel>& channel, const std::string& token,
            bool& welcomed) {
  auto stub = v1::Referee::NewStub(channel);
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + token);
  auto stream = stub->Play(&context);
  v1::BotMessage hello;
  hello.mutable_hello()->set_name("xix-cpp");
  hello.mutable_hello()->set_version("1");
  for (const char* game : kGames) hello.mutable_hello()->add_games(game);
  hello.mutable_hello()->set_protocol_version(2);  // this file's protocol (referee.proto)
  stream->Write(hello);
  v1::RefereeMessage message;
  while (stream->Read(&message)) {
    switch (message.kind_case()) {
      case v1::RefereeMessage::kWelcome:
        welcomed = true;
        break;
      case v1::RefereeMessage::kActionRequest: {
        const auto& request = message.action_request();
        v1::BotMessage reply;
        auto* answer = reply.mutable_action_reply();
        answer->set_match_id(request.match_id());
        answer->set_request_id(request.request_id());
        answer->set_action_index(static_cast<uint32_t>(choose(request)));
        stream->Write(reply);
        break;
      }
      case v1::RefereeMessage::kGoodbye:
        stream->WritesDone();
        stream->Finish();
        return Ending::kGoodbye;
      default:  // MatchStart, MatchEnd: nothing to do
        break;
    }
  }
  grpc::Status status = stream->Finish();
  std::cerr << "stream ended: " << status.error_code() << " " << status.error_message() << "\n";
  auto code = status.error_code();
  if (code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::INVALID_ARGUMENT ||
      code == grpc::StatusCode::FAILED_PRECONDITION) {
    return Ending::kRefused;
  }
  return Ending::kLost;
}

// A session with reconnects: a broken stream is reopened with the same token (the referee gives
// the seat back); give up after 5 s without a Welcome.
bool session(const std::shared_ptr<grpc::Channel>& channel, const std::string& token) {
  int attempts = 0;
  while (true) {
    bool welcomed = false;
    Ending ending = play(channel, token, welcomed);
    if (ending == Ending::kGoodbye) return true;
    if (ending == Ending::kRefused) return false;
    attempts = welcomed ? 0 : attempts + 1;
    if (attempts > 50) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::shared_ptr<grpc::ChannelCredentials> credentials() {
  std::string ca_file = env("CROUPIER_CA_FILE");
  if (!ca_file.empty()) {
    std::ifstream in(ca_file);
    std::stringstream pem;
    pem << in.rdbuf();
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = pem.str();
    return grpc::SslCredentials(options);
  }
  if (env("CROUPIER_TLS") == "1") return grpc::SslCredentials(grpc::SslCredentialsOptions());
  return grpc::InsecureChannelCredentials();
}

}  // namespace

int main() {
  std::string address = env("CROUPIER_ADDRESS", "127.0.0.1:50051");
  std::string token = env("CROUPIER_TOKEN");
  int sessions = std::max(1, std::atoi(env("CROUPIER_SESSIONS", "1").c_str()));
  auto channel = grpc::CreateChannel(address, credentials());
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < sessions; ++i) {
    threads.emplace_back([&] {
      if (!session(channel, token)) ++failed;
    });
  }
  for (auto& thread : threads) thread.join();
  return failed == 0 ? 0 : 1;
}

// A bot in Java for every game, written from the .proto files and docs/bots.md alone (no SDK):
// a uniformly random legal action.
//
// grpc-java has no Unix-socket transport on a plain JVM, so in the sandbox it dials
// CROUPIER_TCP_ADDRESS (the relay on its own loopback to its door), else CROUPIER_ADDRESS. It
// opens CROUPIER_SESSIONS sessions at once with the token CROUPIER_TOKEN, reconnects when a stream
// breaks, and exits with code 0 once every session has ended with Goodbye.

import croupier.v1.ActionReply;
import croupier.v1.ActionRequest;
import croupier.v1.BotMessage;
import croupier.v1.Hello;
import croupier.v1.RefereeGrpc;
import croupier.v1.RefereeMessage;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public final class RandomBot {
  private enum Ending { GOODBYE, LOST, REFUSED }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : value;
  }

  /** The index of the legal action to play. */
  private static int choose(ActionRequest request) {
    return ThreadLocalRandom.current().nextInt(request.getLegalActionsCount());
  }

  /** One Play call: Hello, then answer every ActionRequest until Goodbye or a broken stream. */
  private static Ending play(RefereeGrpc.RefereeStub stub, boolean[] welcomed) {
    CompletableFuture<Ending> ending = new CompletableFuture<>();
    AtomicReference<StreamObserver<BotMessage>> toReferee = new AtomicReference<>();
    toReferee.set(stub.play(new StreamObserver<RefereeMessage>() {
      @Override
      public void onNext(RefereeMessage message) {
        switch (message.getKindCase()) {
          case WELCOME:
            welcomed[0] = true;
            break;
          case ACTION_REQUEST:
            ActionRequest request = message.getActionRequest();
            ActionReply reply = ActionReply.newBuilder()
                .setMatchId(request.getMatchId())
                .setRequestId(request.getRequestId())
                .setActionIndex(choose(request)) // optional: always set it, 0 included
                .build();
            toReferee.get().onNext(BotMessage.newBuilder().setActionReply(reply).build());
            break;
          case GOODBYE:
            toReferee.get().onCompleted();
            ending.complete(Ending.GOODBYE);
            break;
          default: // MatchStart, MatchEvent, MatchEnd: nothing to do
            break;
        }
      }

      @Override
      public void onError(Throwable error) {
        Status.Code code = Status.fromThrowable(error).getCode();
        System.err.println("stream ended: " + Status.fromThrowable(error));
        boolean refused = code == Status.Code.UNAUTHENTICATED
            || code == Status.Code.INVALID_ARGUMENT || code == Status.Code.FAILED_PRECONDITION;
        ending.complete(refused ? Ending.REFUSED : Ending.LOST);
      }

      @Override
      public void onCompleted() {
        ending.complete(Ending.LOST); // ended without Goodbye
      }
    }));
    Hello hello = Hello.newBuilder()
        .setName("java-random")
        .setVersion("1")
        .setProtocolVersion(2) // this file's protocol (referee.proto)
        .build();
    toReferee.get().onNext(BotMessage.newBuilder().setHello(hello).build());
    return ending.join();
  }

  /** A session with reconnects: a broken stream is reopened with the same token (the referee
   * gives the seat back); give up after 5 s without a Welcome. */
  private static boolean session(RefereeGrpc.RefereeStub stub) throws InterruptedException {
    int attempts = 0;
    while (true) {
      boolean[] welcomed = {false};
      Ending ending = play(stub, welcomed);
      if (ending == Ending.GOODBYE) return true;
      if (ending == Ending.REFUSED) return false;
      attempts = welcomed[0] ? 0 : attempts + 1;
      if (attempts > 50) return false;
      Thread.sleep(100);
    }
  }

  private static ChannelCredentials credentials() throws IOException {
    String caFile = env("CROUPIER_CA_FILE", "");
    if (!caFile.isEmpty()) {
      return TlsChannelCredentials.newBuilder().trustManager(new File(caFile)).build();
    }
    if (env("CROUPIER_TLS", "").equals("1")) return TlsChannelCredentials.create();
    return InsecureChannelCredentials.create();
  }

  public static void main(String[] args) throws Exception {
    String address = env("CROUPIER_TCP_ADDRESS", env("CROUPIER_ADDRESS", "127.0.0.1:50051"));
    int sessions = Math.max(1, Integer.parseInt(env("CROUPIER_SESSIONS", "1")));
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + env("CROUPIER_TOKEN", ""));
    ManagedChannel channel = Grpc.newChannelBuilder(address, credentials()).build();
    RefereeGrpc.RefereeStub stub = RefereeGrpc.newStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    List<Thread> threads = new ArrayList<>();
    boolean[] failed = {false};
    for (int i = 0; i < sessions; i++) {
      Thread thread = new Thread(() -> {
        try {
          if (!session(stub)) failed[0] = true;
        } catch (InterruptedException e) {
          failed[0] = true;
        }
      });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) thread.join();
    channel.shutdown().awaitTermination(5, TimeUnit.SECONDS);
    System.exit(failed[0] ? 1 : 0);
  }
}

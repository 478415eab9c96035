// A Xeri bot in Go, written from the .proto files and docs/bots.md alone (no SDK).
//
// In Xeri it captures whenever it can (the top card's rank, or a jack on a pile), preferring
// the biggest pile, and otherwise plays its lowest card that is not a jack. It plays the other
// games too, by a random legal action, so that it can enter any contest. It opens
// CROUPIER_SESSIONS sessions at once to the referee at CROUPIER_ADDRESS with the token
// CROUPIER_TOKEN, reconnects when a stream breaks, and exits with code 0 once every session has
// ended with Goodbye.
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	croupierv1 "croupier/v1"
)

const ranks = "23456789TJQKA"

// games are the games it plays: Xeri by its rules of thumb, the others at random.
var games = []string{"xeri", "xix", "xactika", "textactoe"}

// choose returns the index of the legal action to play.
func choose(request *croupierv1.ActionRequest) uint32 {
	obs := request.GetObservation().GetXeri()
	if obs == nil { // another game
		return uint32(rand.Intn(len(request.GetLegalActions())))
	}
	top := obs.TopCard // nil when the pile is empty (proto3 optional: no value is unset)
	best, bestScore := 0, -1000
	for i, action := range request.GetLegalActions() {
		card := action.GetXeri().GetPlay()
		score := -strings.IndexByte(ranks, card[0]) // low cards first
		if card[0] == 'J' {
			score -= 20 // keep jacks for captures
		}
		if top != nil && (card[0] == (*top)[0] || card[0] == 'J') {
			score = 100 + len(obs.GetPileCards()) // a capture, the bigger the better
			if card[0] == (*top)[0] {
				score += 10 // a jack is worth keeping when the rank matches anyway
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return uint32(best)
}

type ending int

const (
	goodbye ending = iota
	lost
	refused
)

// play runs one Play call: Hello, then answer every ActionRequest until Goodbye or a broken stream.
func play(client croupierv1.RefereeClient, token string, welcomed *bool) ending {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	stream, err := client.Play(ctx)
	if err != nil {
		return lost
	}
	// ProtocolVersion: this file's protocol (referee.proto).
	hello := &croupierv1.Hello{Name: "xeri-go", Version: "1", Games: games, ProtocolVersion: proto.Uint32(2)}
	if err := stream.Send(&croupierv1.BotMessage{Kind: &croupierv1.BotMessage_Hello{Hello: hello}}); err != nil {
		return lost
	}
	for {
		message, err := stream.Recv()
		if err != nil {
			fmt.Fprintln(os.Stderr, "stream ended:", err)
			switch status.Code(err) {
			case codes.Unauthenticated, codes.InvalidArgument, codes.FailedPrecondition:
				return refused
			}
			return lost
		}
		switch kind := message.Kind.(type) {
		case *croupierv1.RefereeMessage_Welcome:
			*welcomed = true
		case *croupierv1.RefereeMessage_ActionRequest:
			request := kind.ActionRequest
			reply := &croupierv1.ActionReply{
				MatchId:     request.GetMatchId(),
				RequestId:   request.GetRequestId(),
				ActionIndex: proto.Uint32(choose(request)), // optional: always set it, 0 included
			}
			if err := stream.Send(&croupierv1.BotMessage{Kind: &croupierv1.BotMessage_ActionReply{ActionReply: reply}}); err != nil {
				fmt.Fprintln(os.Stderr, "send failed:", err)
			}
		case *croupierv1.RefereeMessage_Goodbye:
			stream.CloseSend()
			return goodbye
		}
	}
}

// session plays one session with reconnects: a broken stream is reopened with the same token
// (the referee gives the seat back); it gives up after 5 s without a Welcome.
func session(client croupierv1.RefereeClient, token string) bool {
	attempts := 0
	for {
		welcomed := false
		switch play(client, token, &welcomed) {
		case goodbye:
			return true
		case refused:
			return false
		}
		if welcomed {
			attempts = 0
		} else {
			attempts++
		}
		if attempts > 50 {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func transport() grpc.DialOption {
	if caFile := os.Getenv("CROUPIER_CA_FILE"); caFile != "" {
		creds, err := credentials.NewClientTLSFromFile(caFile, "")
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad CROUPIER_CA_FILE:", err)
			os.Exit(2)
		}
		return grpc.WithTransportCredentials(creds)
	}
	if os.Getenv("CROUPIER_TLS") == "1" {
		return grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{}))
	}
	return grpc.WithInsecure()
}

func main() {
	address := os.Getenv("CROUPIER_ADDRESS")
	if address == "" {
		address = "127.0.0.1:50051"
	}
	sessions, err := strconv.Atoi(os.Getenv("CROUPIER_SESSIONS"))
	if err != nil || sessions < 1 {
		sessions = 1
	}
	conn, err := grpc.Dial(address, transport())
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		os.Exit(1)
	}
	defer conn.Close()
	client := croupierv1.NewRefereeClient(conn)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for i := 0; i < sessions; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !session(client, os.Getenv("CROUPIER_TOKEN")) {
				mu.Lock()
				failed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if failed > 0 {
		os.Exit(1)
	}
}

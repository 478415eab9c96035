"""croupier referee: game engines, match runner, gRPC server, ladders, records and the CLI."""

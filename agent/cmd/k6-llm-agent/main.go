// Command k6-llm-agent is the measuring agent beside k6: it opens each streaming request a k6
// script asks for, stamps every token with the kernel's receive time and answers with the request's
// record (docs/reference/agent-api.md). It listens on loopback unless --host says otherwise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/k6-llm-capacity/agent"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("k6-llm-agent", flag.ContinueOnError)
	host := fs.String("host", "127.0.0.1",
		"address to listen on (loopback by default: the agent opens requests for whoever calls it)")
	port := fs.Int("port", 0, "port to listen on; 0 picks a free one")
	version := fs.Bool("version", false, "print the API version and exit")
	stdinClose := fs.Bool("exit-on-stdin-close", false,
		"shut down when standard input reaches its end: a parent holding the other end of a pipe ends the agent by "+
			"exiting, even when it is killed")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	if *version {
		fmt.Printf("k6-llm-agent API %s\n", agent.Version)
		return 0
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(os.Stderr, "k6-llm-agent: --port %d is not a port (0-65535)\n", *port)
		return 2
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "k6-llm-agent: cannot listen: %v\n", err)
		return 1
	}
	if ip := net.ParseIP(*host); ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(os.Stderr, "k6-llm-agent: listening beyond loopback on %s: "+
			"anyone who reaches it can send requests through it\n", *host)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := agent.NewServer(ctx)
	httpSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 10 * time.Minute}
	fmt.Printf("agent listening on http://%s\n", ln.Addr().String())

	done := make(chan error, 1)
	go func() { done <- httpSrv.Serve(ln) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	if *stdinClose {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			sig <- syscall.SIGTERM
		}()
	}
	select {
	case err := <-done:
		fmt.Fprintf(os.Stderr, "k6-llm-agent: %v\n", err)
		return 1
	case <-sig:
	}
	// Requests in flight end now (their upstream requests are cancelled) and answer as cancelled.
	cancel()
	shutdown, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if err := httpSrv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(os.Stderr, "k6-llm-agent: shutdown: %v\n", err)
	}
	srv.Close()
	return 0
}

package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// ShutdownTimeout bounds how long Serve waits, once its context is done,
// for the requests in flight to be written.
const ShutdownTimeout = 30 * time.Second

// ErrTokenRequired is returned by Listen for an address that is not
// loopback when no token is set.
var ErrTokenRequired = errors.New("a bearer token is required to listen on an address that is not loopback")

// Server is a Receiver listening on a TCP address.
type Server struct {
	recv *Receiver
	ln   net.Listener
	srv  *http.Server
}

// Listen binds addr (DefaultAddr when empty; port 0 picks a free one) and
// returns a server ready to Serve. An address that is not loopback needs
// opts.Token; a host name other than localhost counts as not loopback.
func Listen(addr string, opts Options) (*Server, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %v", addr, err)
	}
	if !isLoopback(host) && opts.Token == "" {
		return nil, fmt.Errorf("%s: %w", addr, ErrTokenRequired)
	}
	recv, err := NewReceiver(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Server{
		recv: recv,
		ln:   netutil.LimitListener(ln, recv.opts.MaxConnections),
		srv: &http.Server{
			Handler: recv,
			// A client that trickles its request must not hold a
			// connection (and a slot) for ever.
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       2 * time.Minute,
			WriteTimeout:      3 * time.Minute,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          log.New(io.Discard, "", 0),
		},
	}, nil
}

// isLoopback reports whether host names only this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Endpoint is the URL to give exporters as OTEL_EXPORTER_OTLP_ENDPOINT.
func (s *Server) Endpoint() string { return "http://" + s.ln.Addr().String() }

// Files returns the paths of the files written to so far, sorted.
func (s *Server) Files() []string { return s.recv.Files() }

// Serve answers requests until ctx is done, then stops accepting
// connections, waits (up to ShutdownTimeout) for the requests in flight
// to be written, and returns. Every file is complete when it returns.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		s.recv.Close()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := s.srv.Shutdown(sctx)
	<-errc
	s.recv.Close()
	if err != nil {
		return fmt.Errorf("shutting down: %v", err)
	}
	return nil
}

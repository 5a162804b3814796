package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"golang.org/x/net/netutil"
)

// ShutdownTimeout bounds how long Serve waits, once its context is done,
// for the requests in flight to be written.
const ShutdownTimeout = 30 * time.Second

// Deadlines of a Server's requests. A client that has not sent its
// headers in HeaderTimeout, or its headers and body in ReadTimeout, is
// cut off, and its request is not written; since a body is read before
// its request takes a turn, a slow client delays nobody else meanwhile.
const (
	HeaderTimeout = 10 * time.Second
	ReadTimeout   = 30 * time.Second
)

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
	var h http.Handler = recv
	if isLoopback(host) {
		h = loopbackOnly(recv)
	}
	return &Server{
		recv: recv,
		ln:   netutil.LimitListener(ln, recv.opts.MaxConnections),
		srv: &http.Server{
			Handler: h,
			// A client that trickles its request must not hold a
			// connection for ever.
			ReadHeaderTimeout: HeaderTimeout,
			ReadTimeout:       ReadTimeout,
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

// loopbackOnly refuses a request whose Host is not a name of this
// machine. A web page can make a browser post to 127.0.0.1 by DNS
// rebinding (a name of its own that resolves to 127.0.0.1), but the
// request then carries that name as its Host, so checking the Host keeps
// pages out of a receiver that has no token.
func loopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !loopbackHost(req.Host) {
			enc, _ := encodingOf(req.Header.Get("Content-Type"))
			fail(w, enc == protoEncoding, http.StatusMisdirectedRequest,
				"host %q is not served; this receiver listens on loopback and answers only localhost, 127.0.0.1 and [::1]", req.Host)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// loopbackHost reports whether a Host header is localhost, 127.0.0.1 or
// [::1], with or without a port.
func loopbackHost(h string) bool {
	if host, _, err := net.SplitHostPort(h); err == nil {
		if strings.Contains(host, ":") && !strings.HasPrefix(h, "[") {
			return false
		}
		h = host
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	} else if strings.Contains(h, ":") {
		return false
	}
	return strings.EqualFold(h, "localhost") || h == "127.0.0.1" || h == "::1"
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Endpoint is the URL to give exporters as OTEL_EXPORTER_OTLP_ENDPOINT.
func (s *Server) Endpoint() string { return "http://" + s.ln.Addr().String() }

// Files returns the paths of the files written to so far, sorted.
func (s *Server) Files() []string { return s.recv.Files() }

// Serve answers requests until ctx is done, then stops accepting
// connections, cuts the bodies still being read (their clients have had
// no answer, so they retry), waits up to ShutdownTimeout for the requests
// read to be written and answered, closes the connections left, and
// returns. Every request acknowledged is in the files when it returns.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		s.recv.Close()
		return err
	case <-ctx.Done():
	}
	s.recv.beginClose()
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := s.srv.Shutdown(sctx)
	if err != nil {
		// A client that does not read its answer; its request is
		// written already.
		_ = s.srv.Close()
	}
	<-errc
	s.recv.Close()
	if err != nil {
		return fmt.Errorf("shutting down: %v", err)
	}
	return nil
}

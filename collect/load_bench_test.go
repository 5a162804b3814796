package collect

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/benchcpu"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// The load of BenchmarkLoad and of scripts/bench-real.sh -k collect:
// loadRequests export requests of loadSpans spans each, posted as
// protobuf (what RunCommand asks exporters for) by one client after the
// other, as one agent's exporter sends them, or by several clients at
// once, each an agent session (a trace) of its own.
const (
	loadRequests = 1000
	loadSpans    = 100
)

// loadBodies returns the bodies of the load, one list per client: each
// request holds loadSpans execute_tool spans of the client's trace, with
// the attributes an agent's spans carry (call id, arguments, a session).
func loadBodies(tb testing.TB, clients int) [][][]byte {
	tb.Helper()
	bodies := make([][][]byte, clients)
	for c := range clients {
		for r := range loadRequests / clients {
			spans := make([]*tracepb.Span, loadSpans)
			for s := range spans {
				n := uint64((c*loadRequests+r)*loadSpans + s)
				spans[s] = toolSpan(traceID(uint64(c+1)), n, fmt.Sprintf("call-%d", n),
					fmt.Sprintf("internal/pkg%d/file%d.go", s%7, n%13),
					str("session.id", fmt.Sprintf("session-%d", c)),
					&commonpb.KeyValue{Key: "gen_ai.usage.input_tokens", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: int64(1000 + n)}}})
			}
			b, err := protoMarshal(traceRequest("load", spans...))
			if err != nil {
				tb.Fatal(err)
			}
			bodies[c] = append(bodies[c], b)
		}
	}
	return bodies
}

// postLoad posts the bodies to url+"/v1/traces", each client's in turn
// on its own connection, and returns the first failure.
func postLoad(url string, bodies [][][]byte) error {
	c := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: len(bodies)}}
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make([]error, len(bodies))
	for i, list := range bodies {
		wg.Go(func() {
			for _, body := range list {
				resp, err := c.Post(url+"/v1/traces", ctProto, bytes.NewReader(body))
				if err != nil {
					errs[i] = err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs[i] = fmt.Errorf("status %s", resp.Status)
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// referenceHandler is the comparison BenchmarkLoad measures the receiver
// against: a plain net/http handler that reads each body, appends it to
// one file with one write and fsyncs it before answering 200, which is
// the least a receiver that loses nothing acknowledged does per request.
// It decodes nothing and limits nothing.
func referenceHandler(dir string) (http.Handler, func() error, error) {
	f, err := os.OpenFile(filepath.Join(dir, "reference.bin"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err == nil {
			_, err = f.Write(body)
		}
		if err == nil {
			err = f.Sync()
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", ctProto)
		w.WriteHeader(http.StatusOK)
	})
	return h, f.Close, nil
}

// BenchmarkLoad posts 1,000 requests of 100 spans (protobuf) to a server
// on loopback, over real HTTP, from one client and from 8 at once, and
// reports spans per second of wall time and the CPU time of one round
// (both ends); one operation is the whole load. "receiver" is a Server
// as "retrievaltest collect" runs it; "reference" is referenceHandler in
// a plain http.Server: the cost of the HTTP exchange and an fsync per
// request, with no decoding.
func BenchmarkLoad(b *testing.B) {
	for _, clients := range []int{1, 8} {
		bodies := loadBodies(b, clients)
		b.Run(fmt.Sprintf("clients=%d/receiver", clients), func(b *testing.B) {
			srv := startServer(b, Options{Dir: b.TempDir()})
			runLoad(b, srv.Endpoint(), bodies)
			if err := srv.stop(); err != nil {
				b.Fatal(err)
			}
		})
		b.Run(fmt.Sprintf("clients=%d/reference", clients), func(b *testing.B) {
			h, closeFile, err := referenceHandler(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			hs := &http.Server{Handler: h}
			go func() { _ = hs.Serve(ln) }()
			runLoad(b, "http://"+ln.Addr().String(), bodies)
			_ = hs.Close()
			if err := closeFile(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func runLoad(b *testing.B, url string, bodies [][][]byte) {
	done := benchcpu.PerOp(b, time.Microsecond)
	for b.Loop() {
		if err := postLoad(url, bodies); err != nil {
			b.Fatal(err)
		}
	}
	done()
	b.ReportMetric(float64(b.N*loadRequests*loadSpans)/b.Elapsed().Seconds(), "spans/s")
}

var (
	loadURL     = flag.String("collect.load", "", "TestLoadClient: post the load of BenchmarkLoad to this `URL` and print spans/s (scripts/bench-real.sh -k collect)")
	loadClients = flag.Int("collect.clients", 1, "TestLoadClient: the clients that post at once")
	referAddr   = flag.String("collect.reference", "", "TestReferenceServer: serve referenceHandler on this `HOST:PORT` until SIGINT or SIGTERM, writing to -collect.reference-dir")
	referDir    = flag.String("collect.reference-dir", "", "the folder TestReferenceServer writes to")
)

// TestLoadClient is the client side of scripts/bench-real.sh -k collect,
// run from the test binary when -collect.load is given.
func TestLoadClient(t *testing.T) {
	if *loadURL == "" {
		t.Skip("a tool of scripts/bench-real.sh: give -collect.load URL")
	}
	bodies := loadBodies(t, *loadClients)
	start := time.Now()
	if err := postLoad(strings.TrimSuffix(*loadURL, "/"), bodies); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%.0f spans/s\n", loadRequests*loadSpans/time.Since(start).Seconds())
}

// TestReferenceServer is the reference server of scripts/bench-real.sh
// -k collect, run from the test binary when -collect.reference is given:
// it serves until it is interrupted, so that /usr/bin/time measures the
// server alone.
func TestReferenceServer(t *testing.T) {
	if *referAddr == "" {
		t.Skip("a tool of scripts/bench-real.sh: give -collect.reference HOST:PORT")
	}
	h, closeFile, err := referenceHandler(*referDir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFile()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *referAddr)
	if err != nil {
		t.Fatal(err)
	}
	// The line "retrievaltest collect" prints, for the script to read.
	fmt.Fprintf(os.Stderr, "reference: listening on http://%s\n", ln.Addr())
	hs := &http.Server{Handler: h}
	go func() { <-ctx.Done(); _ = hs.Shutdown(context.Background()) }()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		t.Fatal(err)
	}
}

package progress

import (
	"bytes"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentretrieval/agentretrieval/internal/printable"
)

func TestPrinterWritesOneLineAnItemOffATerminal(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := New(&b, "check", 2)
	p.Done("fix-bug", "pass", false)
	p.Done("add-service", "FAIL", true)
	p.Finish()
	assert.Equal(t, "check [1/2] fix-bug: pass\ncheck [2/2] add-service: FAIL\n", b.String(), "no colour and no control characters in a log")
}

func TestPrinterCountsConcurrentItems(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := New(&b, "x", 50)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { p.Done("item", "ok", false) })
	}
	wg.Wait()
	assert.Contains(t, b.String(), "x [50/50] item: ok\n")
	assert.Equal(t, 50, bytes.Count(b.Bytes(), []byte("\n")))
}

func TestPrinterEscapesControlCharactersInNames(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := New(printable.NewWriter(&b), "check", 1)
	p.Done("evil\x1b]0;pwned\a\r\u009b", "pass", false)
	assert.Equal(t, "check [1/1] evil\\u001b]0;pwned\\a\\r\\u009b: pass\n", b.String())
}

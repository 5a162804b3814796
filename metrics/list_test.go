package metrics

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteDefinitionsListsEveryMetricOnce(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	require.NoError(t, WriteDefinitions(&b))
	out := b.String()
	for _, d := range Definitions() {
		name := d.Name
		if d.Views {
			name = "[read.]" + name
		}
		assert.Equal(t, 1, strings.Count(out, "\n"+name+"\n"), "%s is listed once, on its own line", name)
		assert.Contains(t, out, d.Definition)
	}
	assert.Contains(t, out, "\n[read.]recall@k\n    Recall@k (TREC), in [0, 1]: ")
}

func TestParseCutoffs(t *testing.T) {
	t.Parallel()
	ks, err := ParseCutoffs("1, 3,10")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 3, 10}, ks)
	for _, bad := range []string{"", "0", "-1", "1,,3", "five", "2.5"} {
		_, err := ParseCutoffs(bad)
		assert.Error(t, err, "%q", bad)
	}
}

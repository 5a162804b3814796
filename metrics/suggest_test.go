package metrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSuggestNamesTheClosestMetric(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"recal@5", "recall@5"},
		{"read.recal@10", "read.recall@10"},
		{"mrrr", "mrr"},
		{"ndgc@3", "ndcg@3"},
		{"semantic_raito", "semantic_ratio"},
		{"banana", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Suggest(tt.name))
		})
	}
}

func TestUnknownMetricErrorSuggestsOrPointsAtTheList(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `unknown metric "recal@5"; did you mean recall@5?`, UnknownMetricError("recal@5"))
	assert.Equal(t, `unknown metric "banana" (retrievaltest metrics -list prints every name)`, UnknownMetricError("banana"))
}

package metrics_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// AnalyzeIndex on a short Aura trace: two semantic calls, a read, and an
// edit of the file the last search returned.
func ExampleAnalyzeIndex() {
	records := `{"toolCalls": [
	  {"tool": "aura_search", "arguments": {"query": "where are orders priced"}, "result": "src/Orders/PriceCalculator.cs:14: public decimal Price(Order order)"},
	  {"tool": "file.read", "arguments": {"path": "src/Orders/Order.cs"}, "result": "1\tpublic sealed class Order"},
	  {"tool": "aura_navigate", "arguments": {"symbol": "PriceCalculator.Price"}, "result": "src/Orders/PriceCalculator.cs:14: PriceCalculator.Price"},
	  {"tool": "file.write", "arguments": {"path": "src/Orders/PriceCalculator.cs", "content": "..."}, "result": "ok"}
	]}`
	sess, err := trace.Read(strings.NewReader(records), trace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	doc := events.Normalize(sess, events.Options{
		GroundTruth: &events.GroundTruth{Files: []string{"src/Orders/PriceCalculator.cs"}},
	})
	ie := metrics.AnalyzeIndex(doc, metrics.IndexOptions{})
	fmt.Printf("semantic ratio %.0f%% (%s)\n", 100**ie.SemanticRatio, ie.Grade)
	fmt.Println("steps to target", *ie.StepsToTarget, "by rule", ie.StepsToTargetRule)
	for _, p := range ie.Patterns {
		fmt.Println(p.Name+":", p.Detail)
	}
	// Output:
	// semantic ratio 67% (good)
	// steps to target 1 by rule ground_truth
	// direct: step 3: aura_navigate, then step 4 edited src/Orders/PriceCalculator.cs
}

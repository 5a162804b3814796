package expectations

// builtinTypes are the types judged from a trace. Each has a file of its
// own, builtin_<subject>.go, holding its parameter struct, its Type (name,
// description, cross-key validation) and its check.
func builtinTypes() []Type {
	return []Type{
		indexUsageType(),
		retrievalType(),
		lineCoverageType(),
		patternsType(),
		toolsType(),
		utilizationType(),
		budgetType(),
		answerType(),
		sequenceType(),
		beforeType(),
		errorsType(),
	}
}

// Bound is a minimum and/or a maximum for a measured number.
type Bound struct {
	Min *float64 `yaml:"min" json:"min,omitempty" doc:"lowest accepted value (inclusive)"`
	Max *float64 `yaml:"max" json:"max,omitempty" doc:"highest accepted value (inclusive)"`
}

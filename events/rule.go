package events

import (
	"fmt"
	"strconv"
	"strings"
)

// A Rule classifies the tools whose names match it.
type Rule struct {
	// Match is an exact tool name or a glob in path.Match syntax
	// ("mcp__sourcegraph__*").
	Match    string   `yaml:"match" json:"match"`
	Category Category `yaml:"category" json:"category"`
	Class    Class    `yaml:"class" json:"class"`
	// By names an argument whose value classifies each call on its own:
	// one tool that views and edits (str_replace_editor's "command") is a
	// read in one call and an edit in the next. Cases maps the argument's
	// values to their classification; a call whose argument is missing, or
	// holds a value Cases does not list, takes Category and Class.
	By    string          `yaml:"by,omitempty" json:"by,omitempty"`
	Cases map[string]Case `yaml:"cases,omitempty" json:"cases,omitempty"`
	// MCP marks the tool as served by an MCP server. When unset, names
	// starting with "mcp__" or "mcp_" count as MCP.
	MCP *bool `yaml:"mcp,omitempty" json:"mcp,omitempty"`
	// Shell marks a tool whose arguments hold a shell command (Bash,
	// execute_bash, exec_command); extraction parses the command for
	// reads, searches and writes.
	Shell bool `yaml:"shell,omitempty" json:"shell,omitempty"`
	// ZeroBasedOffset says the tool's offset argument counts lines from 0
	// (Gemini CLI's read_file), where Claude Code's Read counts from 1.
	ZeroBasedOffset bool `yaml:"zero_based_offset,omitempty" json:"zero_based_offset,omitempty"`
	// Profile names the profile or file the rule came from.
	Profile string `yaml:"-" json:"profile,omitempty"`
}

// A Case is the classification a Rule gives to the calls whose By argument
// holds one value.
type Case struct {
	Category Category `yaml:"category" json:"category"`
	Class    Class    `yaml:"class" json:"class"`
}

// ForCall returns the rule as it applies to one call with the given decoded
// arguments: for a rule with By, the Category and Class of the case its
// argument selects (the rule's own when the argument is missing or its
// value is not listed). A rule without By is returned unchanged.
func (r Rule) ForCall(args map[string]any) Rule {
	if r.By == "" {
		return r
	}
	if c, ok := r.Cases[argumentValue(args[r.By])]; ok {
		r.Category, r.Class = c.Category, c.Class
	}
	return r
}

// argumentValue renders a scalar argument as the string a case is keyed
// by; other values yield "".
func argumentValue(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

func (c Case) validate() error {
	if c.Category == "" {
		return fmt.Errorf("has no category")
	}
	if c.Class == "" {
		return fmt.Errorf("has no class")
	}
	return nil
}

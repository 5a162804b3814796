package yamlerr

import (
	"errors"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromNamesFileLineAndColumn(t *testing.T) {
	t.Parallel()
	var v struct {
		Name string `yaml:"name"`
	}
	err := yaml.UnmarshalWithOptions([]byte("name: x\nnmae: y\n"), &v, yaml.Strict())
	require.Error(t, err)
	got := From("s.yaml", err)
	var e *Error
	require.True(t, errors.As(got, &e))
	assert.Equal(t, &Error{File: "s.yaml", Line: 2, Col: 1, Msg: `unknown key "nmae"`}, e)
	assert.Equal(t, `s.yaml:2:1: unknown key "nmae"`, got.Error())
}

func TestFromKeepsExistingPositionAndFillsFile(t *testing.T) {
	t.Parallel()
	err := From("f.yaml", &Error{Line: 3, Col: 4, Msg: "bad"})
	assert.Equal(t, "f.yaml:3:4: bad", err.Error())
	assert.Nil(t, From("f.yaml", nil))
	assert.Equal(t, "f.yaml: plain", From("f.yaml", errors.New("plain")).Error())
}

func TestErrorWithoutPosition(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "f.yaml: msg", (&Error{File: "f.yaml", Msg: "msg"}).Error())
	assert.Equal(t, "msg", (&Error{Msg: "msg"}).Error())
}

func TestTheDecodersTypeErrorsSpeakOfTheFile(t *testing.T) {
	t.Parallel()
	type inner struct {
		Path  string `yaml:"path"`
		Grade int    `yaml:"grade"`
	}
	var v struct {
		Files   []inner           `yaml:"files"`
		Names   []string          `yaml:"names"`
		Ratio   float64           `yaml:"ratio"`
		On      bool              `yaml:"on"`
		Small   int8              `yaml:"small"`
		Counts  map[string]uint32 `yaml:"counts"`
		Nothing []string          `yaml:"nothing"`
	}
	for src, want := range map[string]string{
		"files: {a: 1}\n":                "f.yaml:1:8: expected a list, got a mapping",
		"files: [3]\n":                   "f.yaml:1:9: expected a mapping, got a whole number",
		"files: [{path: [a]}]\n":         "f.yaml:1:16: expected a string, got a list",
		"files: [{path: a, grade: x}]\n": "f.yaml:1:26: expected a whole number, got a string",
		"names: [{a: 1}]\n":              "f.yaml:1:9: expected a string, got a mapping",
		"names: true\n":                  "f.yaml:1:8: expected a list, got a boolean",
		"ratio: [1]\n":                   "f.yaml:1:8: expected a number, got a list",
		"on: [1]\n":                      "f.yaml:1:5: expected true or false, got a list",
		"small: 300\n":                   "f.yaml:1:8: 300 is out of range for a whole number",
		"counts: {a: x}\n":               "f.yaml:1:13: expected a whole number, got a string",
	} {
		err := yaml.UnmarshalWithOptions([]byte(src), &v, yaml.Strict())
		require.Error(t, err, src)
		got := From("f.yaml", err).Error()
		assert.Equal(t, want, got, src)
		assert.NotContains(t, got, "Go ", src)
	}
}

func TestCleanMessageLeavesOtherMessagesAsTheyAre(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{
		"mapping value is not allowed in this context",
		"cannot unmarshal something odd",
		"x was used where y",
	} {
		assert.Equal(t, msg, cleanMessage(msg))
	}
	assert.Equal(t, `unknown key "a"`, cleanMessage(`  unknown field "a" `))
	assert.Equal(t, "expected a tag, got nothing", cleanMessage("null was used where a tag is expected"))
}

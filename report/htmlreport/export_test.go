package htmlreport

import "encoding/json"

// DataStrings decodes a trace's data blocks and returns every string in
// them, for the tests of what a page carries.
func DataStrings(calls, details string) ([]string, error) {
	d, err := decodeData(calls, details)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out, nil
}

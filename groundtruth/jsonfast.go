package groundtruth

import (
	"bytes"
	"encoding/json"
)

// jsonPaths decodes the forms a large ground truth takes, a JSON list of
// paths or a JSON object whose only keys are files and expected_edit_files
// holding lists of paths, with encoding/json: reading a million paths as
// YAML takes seconds and gigabytes. ok is false for anything else (another
// key, an entry that is not a string, a key given twice, invalid JSON); the
// YAML reader then decodes the file and reports its problems at their
// place, so the two readers never disagree on what they both accept.
func jsonPaths(data []byte) (f truthFile, ok bool) {
	// JSON's own white space only: YAML and bytes.TrimSpace take more.
	start := bytes.TrimLeft(data, " \t\r\n")
	if len(start) == 0 || (start[0] != '[' && start[0] != '{') || !json.Valid(data) {
		return f, false
	}
	if start[0] == '[' {
		var paths []jsonPath
		if json.Unmarshal(data, &paths) != nil {
			return f, false
		}
		files, ok := entries(paths)
		return truthFile{Files: files}, ok
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '{'
		return f, false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey || seen[key] {
			return f, false
		}
		seen[key] = true
		var paths []jsonPath
		if dec.Decode(&paths) != nil {
			return f, false
		}
		switch key {
		case "files":
			if f.Files, ok = entries(paths); !ok {
				return f, false
			}
		case "expected_edit_files":
			files, ok := entries(paths)
			if !ok {
				return f, false
			}
			for _, e := range files {
				f.ExpectedEditFiles = append(f.ExpectedEditFiles, e.Path)
			}
		default:
			return f, false
		}
	}
	return f, true
}

// jsonPath is a path in a JSON list; nil stands for null, which is not a
// path (encoding/json would turn it into "" silently in a []string).
type jsonPath = *string

// entries returns the paths as file entries; ok is false if one is null.
func entries(paths []jsonPath) ([]fileEntry, bool) {
	if paths == nil {
		return nil, true
	}
	out := make([]fileEntry, len(paths))
	for i, p := range paths {
		if p == nil {
			return nil, false
		}
		out[i] = fileEntry{Path: *p, Grade: 1}
	}
	return out, true
}

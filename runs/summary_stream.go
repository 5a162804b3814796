package runs

import (
	"bufio"
	"encoding/json"
	"fmt"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// streamSummaryEntries reads the entries of a run summary file one at a
// time, calling f with the index of their configuration, its name and
// the entry, in the file's order, without holding the document: what a
// page of a large run reads its rows from. The configuration's name must
// come before its entries, as WriteSummary and the run-dir command write
// them.
func streamSummaryEntries(file string, f func(i int, config string, e *TaskEntry) error) error {
	r, err := input.Open(file, maxInput.Or(input.TraceLimit))
	if err != nil {
		return err
	}
	defer r.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	bad := func(err error) error { return fmt.Errorf("run summary %s: %w", file, err) }
	// object walks the members of the object that comes next, calling
	// member with each key; member must read the value.
	object := func(member func(key string) error) error {
		if tok, err := dec.Token(); err != nil {
			return bad(err)
		} else if tok != json.Delim('{') {
			return bad(fmt.Errorf("want a JSON object, found %v", tok))
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return bad(err)
			}
			key, _ := tok.(string)
			if err := member(key); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return bad(err)
		}
		return nil
	}
	// array walks the elements of the array that comes next; null is an
	// empty one.
	array := func(what string, elem func() error) error {
		tok, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		if tok == nil {
			return nil
		}
		if tok != json.Delim('[') {
			return bad(fmt.Errorf("%q: want an array, found %v", what, tok))
		}
		for dec.More() {
			if err := elem(); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return bad(err)
		}
		return nil
	}
	skip := func() error {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return bad(err)
		}
		return nil
	}
	return object(func(key string) error {
		if key != "configs" {
			return skip()
		}
		i := -1
		return array("configs", func() error {
			i++
			var config string
			named := false
			return object(func(key string) error {
				switch key {
				case "config":
					named = true
					if err := dec.Decode(&config); err != nil {
						return bad(fmt.Errorf("configuration %d: %w", i+1, err))
					}
					return nil
				case "tasks":
					if !named {
						return bad(fmt.Errorf(`configuration %d: "tasks" comes before "config"`, i+1))
					}
					n := 0
					return array("tasks", func() error {
						n++
						var e TaskEntry
						if err := dec.Decode(&e); err != nil {
							return bad(fmt.Errorf("configuration %s: entry %d: %w", config, n, err))
						}
						return f(i, config, &e)
					})
				}
				return skip()
			})
		})
	})
}

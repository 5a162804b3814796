package expectations

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// defaultEntityPattern finds IDs such as INC-2024-089, CVE-2024-12345,
// PROJ-456 and SRV-789 (incident, vulnerability, project and service IDs)
// when the expectation gives no entity_patterns.
const defaultEntityPattern = `\b[A-Z][A-Z0-9]*-\d+(?:-\d+)*\b`

// Answer are the parameters of the answer expectation: correct-first
// keyword grading of the agent's final answer.
type Answer struct {
	Required       []string   `yaml:"required" alias:"correct_keywords" doc:"keywords that must all appear (case-insensitive)"`
	Paraphrases    [][]string `yaml:"paraphrases" alias:"acceptable_paraphrases" doc:"acceptable alternatives: the answer is correct when any one keyword set appears in full"`
	Incorrect      []string   `yaml:"incorrect" alias:"incorrect_patterns" doc:"patterns that fail the answer, counted only when the correct answer is missing"`
	EntityPatterns []string   `yaml:"entity_patterns" doc:"regular expressions for entity IDs (INC-\\d{4}-\\d{3})" format:"regexp"`
	Entities       []string   `yaml:"entities" doc:"entity IDs the answer must name"`
	MinScore       *float64   `yaml:"min_score" doc:"lowest share of required keywords present" min:"0" max:"1"`
}

func answerType() Type {
	return Type{
		Name:        "answer",
		Description: "correct-first keyword grading of the agent's final answer, and the entity IDs it must name",
		Params:      Answer{},
		ReadsCalls:  readsNoCalls,
		Check:       func(p any, run *Run) Outcome { return checkAnswer(p.(*Answer), run) },
		Validate: func(p any) error {
			a := p.(*Answer)
			switch {
			case len(a.Required) == 0 && len(a.Paraphrases) == 0 && len(a.Entities) == 0:
				return errors.New("nothing to grade: give required, paraphrases or entities")
			case len(a.Incorrect) > 0 && len(a.Required) == 0 && len(a.Paraphrases) == 0:
				return errors.New("incorrect needs required or paraphrases: incorrect patterns count only when the correct answer is missing, so the correct answer must be defined")
			case a.MinScore != nil && len(a.Required) == 0:
				return errors.New("min_score is the share of required keywords present: give required")
			case len(a.EntityPatterns) > 0 && len(a.Entities) == 0:
				return errors.New("entity_patterns extract the IDs that entities lists: give entities")
			}
			for i, set := range a.Paraphrases {
				if len(set) == 0 {
					return fmt.Errorf("paraphrases[%d] is empty: an empty set would make every answer correct", i)
				}
			}
			return nil
		},
	}
}

// checkAnswer grades the answer correct first: the answer is correct when every required keyword
// appears, or when every keyword of one acceptable paraphrase does.
// Incorrect patterns count only when the answer is not correct, so that
// "the budget rose from $1.2M to $1.4M" is correct although $1.2M is a
// known wrong value. Keywords match as case-insensitive substrings.
func checkAnswer(p *Answer, run *Run) Outcome {
	if run == nil || run.Session == nil || strings.TrimSpace(run.Session.Answer) == "" {
		return fail("the trace has no final answer to grade")
	}
	answer := run.Session.Answer
	lower := strings.ToLower(answer)
	has := func(k string) bool { return strings.Contains(lower, strings.ToLower(k)) }
	var cs checks
	if len(p.Required) > 0 || len(p.Paraphrases) > 0 {
		cs.add(gradeKeywords(p, has))
	}
	if len(p.Entities) > 0 {
		cs.add(gradeEntities(p, answer))
	}
	cs.evidenceOf("answer: " + excerpt(answer, 200))
	return cs.outcome()
}

func gradeKeywords(p *Answer, has func(string) bool) check {
	var present, missing []string
	for _, k := range p.Required {
		if has(k) {
			present = append(present, k)
		} else {
			missing = append(missing, k)
		}
	}
	para := slices.IndexFunc(p.Paraphrases, func(set []string) bool {
		return !slices.ContainsFunc(set, func(k string) bool { return !has(k) })
	})
	correct := len(p.Required) > 0 && len(missing) == 0 || para >= 0
	var wrong []string
	for _, w := range p.Incorrect {
		if has(w) {
			wrong = append(wrong, w)
		}
	}
	threshold := "all required keywords"
	switch {
	case len(p.Required) == 0:
		threshold = "one paraphrase in full"
	case len(p.Paraphrases) > 0:
		threshold += " or one paraphrase in full"
	}
	if p.MinScore != nil {
		threshold += ", or keyword score ≥ " + thresholdText(*p.MinScore, true)
	}
	c := check{name: "answer", threshold: threshold}
	switch {
	case correct && len(p.Required) > 0 && len(missing) == 0:
		c.ok, c.measured = true, "correct"
		c.detail = fmt.Sprintf("all %s present: %s", plural1(len(p.Required), "required keyword", "required keywords"), strings.Join(p.Required, ", "))
	case correct:
		c.ok, c.measured = true, "correct"
		c.detail = fmt.Sprintf("paraphrase %d present in full: %s", para+1, strings.Join(p.Paraphrases[para], ", "))
	case len(wrong) > 0:
		c.measured = "incorrect"
		c.detail = fmt.Sprintf("names %s, an incorrect answer, and not the correct one", strings.Join(wrong, ", "))
		if len(missing) > 0 {
			c.detail += "; missing " + strings.Join(missing, ", ")
		}
	case p.MinScore != nil:
		score := float64(len(present)) / float64(len(p.Required))
		c.ok = score >= *p.MinScore
		c.measured = "keyword score " + measuredText(score, p.MinScore, nil, true, c.ok)
		c.detail = "missing " + strings.Join(missing, ", ")
	default:
		c.measured = "incomplete"
		if len(missing) > 0 {
			c.detail = "missing " + strings.Join(missing, ", ")
		} else {
			c.detail = "no paraphrase present in full"
		}
	}
	if correct && len(wrong) > 0 {
		c.detail += fmt.Sprintf("; %s ignored because the correct answer is present", strings.Join(wrong, ", "))
	}
	return c
}

// gradeEntities extracts IDs with the patterns and requires every listed
// entity among them. Extraction, rather than a substring test, keeps
// INC-2024-08 from matching inside INC-2024-089.
func gradeEntities(p *Answer, answer string) check {
	pats := p.EntityPatterns
	if len(pats) == 0 {
		pats = []string{defaultEntityPattern}
	}
	var found []string
	for _, pat := range pats {
		re, err := regexp.Compile(pat)
		if err != nil { // checked when loading; a caller may build params by hand
			return check{name: "entities", threshold: "all named", missing: fmt.Sprintf("entity pattern %q: %v", pat, err)}
		}
		for _, m := range re.FindAllString(answer, -1) {
			if !slices.Contains(found, m) {
				found = append(found, m)
			}
		}
	}
	var missing []string
	for _, e := range p.Entities {
		if !slices.Contains(found, e) {
			missing = append(missing, e)
		}
	}
	c := check{name: "entities", threshold: "all of " + strings.Join(p.Entities, ", "), ok: len(missing) == 0}
	c.measured = fmt.Sprintf("%d of %d named", len(p.Entities)-len(missing), len(p.Entities))
	if len(missing) > 0 {
		c.detail = "missing " + strings.Join(missing, ", ")
		if len(found) > 0 {
			c.detail += "; the answer names " + strings.Join(found, ", ")
		}
	}
	return c
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

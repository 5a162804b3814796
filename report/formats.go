package report

import (
	"io"

	"github.com/agentretrieval/agentretrieval/trace"
)

// WriteFormats writes trace formats (trace.Registry.Infos) as a table:
// the name that forces the format, whether it is also read from a folder,
// whether one input may hold several sessions, an example file name, what
// writes it and how it is recognized. A format that does not describe
// itself shows its name only.
func WriteFormats(w io.Writer, infos []trace.FormatInfo) error {
	header := []string{"Format", "Folder", "Sessions", "Example", "Written by", "Detected by"}
	yes := map[bool]string{true: "yes", false: "no"}
	sessions := map[bool]string{true: "several", false: "one"}
	var cells [][]string
	for _, f := range infos {
		cells = append(cells, []string{
			Code(f.Name), yes[f.Folder], sessions[f.Multi],
			orNA(Code(f.Example)), orNA(Escape(f.Writer)), orNA(Escape(f.Detection)),
		})
	}
	return writeTable(w, header, cells)
}

func orNA(s string) string {
	if s == "" {
		return "n/a"
	}
	return s
}

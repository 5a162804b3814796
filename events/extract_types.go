package events

// Extraction is what one tool call reveals about the code it touched: the
// files it named, the lines it showed the agent, the symbols it asked about
// and the query it ran. Paths are already normalized.
type Extraction struct {
	// Files lists every file named by the call's arguments or result, in
	// order of first mention, without duplicates.
	Files []FileRef
	// Ranges lists the line ranges whose content the call showed the agent.
	Ranges []LineRange
	// Symbols lists identifiers the call navigated to or inspected.
	Symbols []string
	// Query is the search query or pattern, when the call is a search.
	Query string
	// Category and Class, when non-empty, refine the taxonomy's answer for
	// this one call: a shell call that runs `cat` is a file_read, one that
	// runs `grep` a code_search, one that redirects into a file a
	// file_write.
	Category Category
	Class    Class
	// Failed is set when the call's output shows that it failed although
	// the trace did not mark it (an uncaught Python traceback, an edit
	// tool's "No replacement was performed").
	Failed bool
	// Warnings lists what of the call's arguments could not be used: a
	// value that could not be decoded, a line number that is not one. The
	// call's other arguments are still read.
	Warnings []string
}

// A FileRef is one file named by a call.
type FileRef struct {
	Path string
	// Read is true when the call showed the agent the file's content (a
	// read, a shell read, a search hit carrying content lines).
	Read bool
	// Written is true when the call created or changed the file.
	Written bool
	// FromResult is true when the file was named only in the result (a
	// search hit, a listing entry), not in the arguments.
	FromResult bool
}

// A LineRange is an inclusive, 1-based range of lines in a file.
type LineRange struct {
	Path  string `json:"path"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Category is the retrieval-events schema's tool category.
type Category string

const (
	FileRead         Category = "file_read"
	FileSearch       Category = "file_search"
	SymbolNavigation Category = "symbol_navigation"
	CodeSearch       Category = "code_search"
	CommitSearch     Category = "commit_search"
	DeepSearch       Category = "deep_search"
	FileWrite        Category = "file_write"
	OtherCategory    Category = "other"
)

// Categories lists every category in schema order.
var Categories = []Category{FileRead, FileSearch, SymbolNavigation, CodeSearch, CommitSearch, DeepSearch, FileWrite, OtherCategory}

// Class is the index-effectiveness class of a tool: does the call use the
// semantic index, read files one by one, edit, or none of these.
type Class string

const (
	Semantic   Class = "semantic"
	FileLevel  Class = "file_level"
	Edit       Class = "edit"
	OtherClass Class = "other"
)

// Classes lists every class.
var Classes = []Class{Semantic, FileLevel, Edit, OtherClass}

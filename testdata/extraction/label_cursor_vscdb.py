#!/usr/bin/env python3
"""Label the tool calls of the Cursor state.vscdb sample by the rules of
../shared/extraction/SPEC.md, reading the raw database with Python's own
sqlite3 module (read-only), never with retrievaltest.

usage: label_cursor_vscdb.py SAMPLES_DIR > cursor-vscdb.jsonl

What each tool's stored result shows the model, decided from the raw rows:
- read_file: result.contents holds the requested lines, starting at
  rawArgs.offset (1-based; 1 without offset); a final newline is not a line.
- grep (output_mode content): every match and context line, each with its
  lineNumber (a line without "content" is an empty line, shown empty).
- grep (files_with_matches): the file names, none of their lines.
- codebase_search: each code result names its file; its detailedLines give
  the lines shown, by lineNumber (text-less entries are empty lines).
- apply_patch: resultForModel names the updated file; the diff chunks are
  kept for the editor's display and not sent to the model.
- read_lints: the diagnostics name the file and quote no line of it.
The working directory is the workspace folder the grep results are keyed by.
"""
import json
import os
import sqlite3
import sys

TRACE = "cursor-vscdb/gitai-cursor_test-gpt5-agent.vscdb"
CWD = "/Users/svarlamov/projects/git-ai/"


def rel(p):
    """A path relative to the working directory, ./ and .. resolved."""
    p = p[len(CWD):] if p.startswith(CWD) else p
    return os.path.normpath(p)


def ranges(path, numbers):
    out = []
    for n in sorted(set(numbers)):
        if out and out[-1]["end"] == n - 1:
            out[-1]["end"] = n
        else:
            out.append({"path": path, "start": n, "end": n})
    return out


def main(samples):
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(samples, TRACE), uri=True)
    rows = dict(db.execute("SELECT key, value FROM cursorDiskKV"))
    composer = [k for k in rows if k.startswith("composerData:")][0]
    cid = composer.split(":", 1)[1]
    headers = json.loads(rows[composer])["fullConversationHeadersOnly"]
    step = 0
    for h in headers:
        bubble = json.loads(rows["bubbleId:%s:%s" % (cid, h["bubbleId"])])
        t = bubble.get("toolFormerData")
        if not t:
            continue
        name, args = t["name"], json.loads(t["rawArgs"])
        res = json.loads(t["result"])
        lab = {"trace": TRACE, "call_id": t["toolCallId"].split("\n")[0], "step_index": step, "tool_name": name,
               "class": "file_level", "is_error": t["status"] != "completed", "target_files": [], "files_read": [],
               "files_written": [], "line_ranges": [], "command": "", "note": ""}
        step += 1
        if name == "read_file":
            f = rel(args["target_file"])
            n = res["contents"].count("\n") + 1
            if res["contents"].endswith("\n"):
                n -= 1
            start = args.get("offset", 1)
            lab.update(command=f, target_files=[f], files_read=[f], line_ranges=ranges(f, range(start, start + n)),
                       note="read_file contents: %d lines from line %d" % (n, start))
        elif name == "grep":
            lab["command"] = "grep %s in %s (%s)" % (args["pattern"], rel(args["path"]), args.get("output_mode"))
            for ws in res["success"]["workspaceResults"].values():
                if "files" in ws:
                    lab["target_files"] = [rel(f) for f in ws["files"]["files"]]
                    lab["note"] = "files_with_matches: names only"
                for fm in ws.get("content", {}).get("matches", []):
                    f = rel(fm["file"])
                    lab["target_files"].append(f)
                    lab["files_read"].append(f)
                    lab["line_ranges"] += ranges(f, [m["lineNumber"] for m in fm["matches"]])
            if not lab["target_files"]:
                lab["note"] = "no match"
        elif name == "codebase_search":
            lab.update(**{"class": "semantic", "command": args["query"]})
            shown = {}
            for cr in res["codeResults"]:
                f = rel(cr["codeBlock"]["relativeWorkspacePath"])
                if f not in lab["target_files"]:
                    lab["target_files"].append(f)
                lines = [d["lineNumber"] for d in cr["codeBlock"].get("detailedLines", [])]
                if lines:
                    shown.setdefault(f, []).extend(lines)
            for f, lines in shown.items():
                lab["files_read"].append(f)
                lab["line_ranges"] += ranges(f, lines)
            lab["note"] = "code results with numbered detailedLines"
        elif name == "apply_patch":
            f = rel(args["file_path"])
            lab.update(**{"class": "edit", "command": "apply_patch " + f, "target_files": [f], "files_written": [f],
                          "note": "resultForModel: Success. Updated the following files; diff chunks are display only"})
        elif name == "read_lints":
            lab.update(**{"class": "other", "command": "read_lints", "target_files": [rel(p) for p in args["paths"]],
                          "note": "diagnostics name the file, quote no line"})
        lab["target_files"] = sorted(set(lab["target_files"]))
        lab["files_read"] = sorted(set(lab["files_read"]))
        print(json.dumps(lab))


if __name__ == "__main__":
    main(sys.argv[1])

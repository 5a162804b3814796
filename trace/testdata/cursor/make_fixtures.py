#!/usr/bin/env python3
"""Writes terminal-edit-search.vscdb, a Cursor state.vscdb written for the
tests (not copied from a real one), with Python's sqlite3 module. Run from
this folder; the file is committed.

Table cursorDiskKV as Cursor creates it, holding:
- composer c-new (bubbles in rows of their own): a user prompt, then tool
  calls run_terminal_cmd, list_dir, file_search, grep_search, edit_file,
  search_replace (status error), delete_file, an MCP tool
  (mcp_linear_list_issues) and a call cancelled without result; a bubble
  listed but missing, and one whose value is not JSON;
- composer c-old (bubbles inline, in conversation): one read_file;
- a composerData row whose value is not JSON.
"""
import json
import os
import sqlite3

NAME = "terminal-edit-search.vscdb"
if os.path.exists(NAME):
    os.remove(NAME)

W = "/home/dev/shop"


def tool(name, call, args, result=None, status="completed", **extra):
    t = {"tool": 1, "name": name, "toolCallId": call + "\nfc_" + call, "status": status,
         "rawArgs": json.dumps(args), "params": json.dumps(args)}
    if result is not None:
        t["result"] = json.dumps(result)
    t.update(extra)
    return t


bubbles = [
    {"type": 1, "text": "Make checkout handle empty carts", "createdAt": "2026-01-02T10:00:00.000Z"},
    {"type": 2, "text": "", "createdAt": "2026-01-02T10:00:05.000Z",
     "tokenCount": {"inputTokens": 1200, "outputTokens": 40},
     "toolFormerData": tool("run_terminal_cmd", "call_term", {"command": "go test ./cart", "is_background": False},
                            {"output": "--- FAIL: TestCheckoutEmpty\nFAIL\tshop/cart\n", "rejected": False})},
    {"type": 2, "text": "", "createdAt": "2026-01-02T10:00:06.000Z",
     "toolFormerData": tool("list_dir", "call_ls", {"relative_workspace_path": "cart"},
                            {"directoryRelativeWorkspacePath": "cart",
                             "files": [{"name": "checkout.go", "isDirectory": False}, {"name": "testdata", "isDirectory": True}]})},
    {"type": 2, "text": "", "createdAt": "2026-01-02T10:00:07.000Z",
     "toolFormerData": tool("file_search", "call_fs", {"query": "checkout"},
                            {"files": [{"uri": W + "/cart/checkout.go"}, {"uri": W + "/cart/checkout_test.go"}]})},
    {"type": 2, "text": "", "createdAt": "2026-01-02T10:00:08.000Z",
     "toolFormerData": tool("grep_search", "call_grep", {"query": "func Checkout"},
                            {"success": {"workspaceResults": {W: {"content": {"matches": [
                                {"file": "cart/checkout.go", "matches": [{"lineNumber": 11, "content": "func Checkout(c *Cart) error {"}]}]}}}}})},
    {"type": 2, "text": "", "createdAt": "2026-01-02T10:00:09.000Z",
     "toolFormerData": tool("edit_file", "call_edit",
                            {"target_file": W + "/cart/checkout.go", "instructions": "guard empty carts",
                             "code_edit": "func Checkout(c *Cart) error {\n\tif len(c.Items) == 0 {\n\t\treturn ErrEmpty\n\t}\n// ... existing code ..."},
                            {"diff": {"chunks": [{"diffString": "+\tif len(c.Items) == 0 {", "oldStart": 11, "newStart": 11}]},
                             "resultForModel": "The apply model made the following changes to the file:\n\n```\n func Checkout(c *Cart) error {\n+\tif len(c.Items) == 0 {\n+\t\treturn ErrEmpty\n+\t}\n```"})},
    {"type": 2, "text": "", "createdAt": "2026-01-02T10:00:10.000Z",
     "toolFormerData": tool("search_replace", "call_sr",
                            {"file_path": W + "/cart/errors.go", "old_string": "ErrEmptyy", "new_string": "ErrEmpty"},
                            {"error": "The string to replace was not found in the file."}, status="error")},
    {"type": 2, "text": "", "createdAt": "2026-01-02T10:00:11.000Z",
     "toolFormerData": tool("delete_file", "call_rm", {"target_file": W + "/cart/old.go"}, {"success": True})},
    {"type": 2, "text": "", "createdAt": "2026-01-02T10:00:12.000Z",
     "toolFormerData": tool("mcp_linear_list_issues", "call_mcp", {"query": "checkout"}, {"issues": [{"id": "SHOP-1"}]})},
    {"type": 2, "text": "", "createdAt": "2026-01-02T10:00:13.000Z",
     "toolFormerData": tool("read_file", "call_cut", {"target_file": W + "/cart/cart.go"}, status="cancelled")},
    {"type": 2, "text": "Checkout returns ErrEmpty for an empty cart now.", "createdAt": "2026-01-02T10:00:14.000Z",
     "tokenCount": {"inputTokens": 300, "outputTokens": 25}},
]
ids = ["b%02d" % i for i in range(len(bubbles))]
headers = [{"bubbleId": b, "type": bubbles[i]["type"]} for i, b in enumerate(ids)]
headers.insert(3, {"bubbleId": "b-missing", "type": 2})
headers.insert(5, {"bubbleId": "b-broken", "type": 2})

rows = [("composerData:c-new", json.dumps({"_v": 10, "composerId": "c-new", "name": "Empty carts",
                                           "createdAt": 1767348000000, "fullConversationHeadersOnly": headers,
                                           "modelConfig": {"modelName": "claude-4.5-sonnet"}}))]
rows += [("bubbleId:c-new:" + b, json.dumps(dict(bubbles[i], bubbleId=b))) for i, b in enumerate(ids)]
rows.append(("bubbleId:c-new:b-broken", "{not json"))
rows.append(("composerData:c-old", json.dumps({"_v": 2, "composerId": "c-old", "createdAt": 1767261600000, "conversation": [
    {"type": 1, "text": "What does cart.go hold?"},
    {"type": 2, "text": "", "toolFormerData": tool("read_file", "call_old", {"target_file": W + "/cart/cart.go"},
                                                   {"contents": "package cart\n\ntype Cart struct{}\n"})}]})))
rows.append(("composerData:c-bad", "[1, 2"))
rows.append(("checkpointId:c-new:x", "{}"))

db = sqlite3.connect(NAME)
db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
db.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
db.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
db.commit()
db.close()

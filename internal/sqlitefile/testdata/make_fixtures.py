#!/usr/bin/env python3
"""Writes the SQLite files the tests of package sqlitefile read, with
Python's sqlite3 module. Run from this folder; the files are committed.

- kv-interior-overflow.db: page size 512, table kv(key TEXT, value BLOB)
  of 300 rows (key k0000…k0299, value: text of 40 bytes, every 7th row a
  text of 3000 bytes that overflows, every 11th a BLOB, every 13th NULL,
  every 17th an integer, every 19th a float), so that the table's B-tree
  has interior pages and overflow chains; a second table t(a, b) of 3 rows.
- wal.db and wal.db-wal: a database in WAL mode whose log holds committed
  changes that were never checkpointed: 5 rows in the file, 3 more and one
  update in the log, and a last transaction that was not committed.
"""
import os
import shutil
import sqlite3


def value(i):
    if i % 19 == 0:
        return i / 4
    if i % 17 == 0:
        return i * 1000003
    if i % 13 == 0:
        return None
    if i % 11 == 0:
        return bytes(range(i % 256)) * 3
    if i % 7 == 0:
        return ("long %04d " % i) * 300
    return "value %04d " % i + "x" * 29


for f in ["kv-interior-overflow.db", "wal.db", "wal.db-wal"]:
    if os.path.exists(f):
        os.remove(f)

db = sqlite3.connect("kv-interior-overflow.db")
db.execute("PRAGMA page_size=512")
db.execute("CREATE TABLE kv (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
db.execute("CREATE TABLE t (a, b)")
db.executemany("INSERT INTO kv VALUES (?, ?)", [("k%04d" % i, value(i)) for i in range(300)])
db.executemany("INSERT INTO t VALUES (?, ?)", [(1, "one"), (-2, "two"), (2**40, "big")])
db.commit()
db.close()

db = sqlite3.connect("wal-build.db", isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("CREATE TABLE kv (key TEXT, value BLOB)")
for i in range(5):
    db.execute("INSERT INTO kv VALUES (?, ?)", ("base%d" % i, "in the file"))
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.execute("BEGIN")
for i in range(3):
    db.execute("INSERT INTO kv VALUES (?, ?)", ("wal%d" % i, "in the log"))
db.execute("UPDATE kv SET value = 'updated in the log' WHERE key = 'base0'")
db.execute("COMMIT")
# Copy while the connection is open, so that closing does not checkpoint.
shutil.copy("wal-build.db", "wal.db")
shutil.copy("wal-build.db-wal", "wal.db-wal")
db.close()
for f in ["wal-build.db", "wal-build.db-wal", "wal-build.db-shm"]:
    if os.path.exists(f):
        os.remove(f)

# An uncommitted frame at the end of the log: a page written by a
# transaction that never committed must not be read.
with open("wal.db-wal", "rb") as f:
    log = f.read()
page = int.from_bytes(log[8:12], "big")
frame = log[32:32 + 24 + page]
bad = bytearray(frame)
bad[4:8] = (0).to_bytes(4, "big")  # not a commit frame
bad[24:24 + 6] = b"UNSEEN"
order = "big" if log[0:4] == b"\x37\x7f\x06\x83" else "little"
s0, s1 = int.from_bytes(frame[16:20], "big"), int.from_bytes(frame[20:24], "big")
data = bytes(bad[:8]) + bytes(bad[24:])
for i in range(0, len(data), 8):
    s0 = (s0 + int.from_bytes(data[i:i + 4], order) + s1) & 0xFFFFFFFF
    s1 = (s1 + int.from_bytes(data[i + 4:i + 8], order) + s0) & 0xFFFFFFFF
bad[16:20], bad[20:24] = s0.to_bytes(4, "big"), s1.to_bytes(4, "big")
with open("wal.db-wal", "ab") as f:
    f.write(bytes(bad))

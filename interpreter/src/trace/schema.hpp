// The trace database's schema, version 1 (docs/trace-format.md documents every column). Columns
// added within a version (launches.target, ops.rank) have defaults a reader assumes when a trace
// lacks them.
#pragma once

namespace bv::detail::trace {

inline constexpr int schema_version = 1;

inline constexpr const char* schema_sql = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE launches(
  id INTEGER PRIMARY KEY, kernel TEXT NOT NULL,
  grid_x INTEGER NOT NULL, grid_y INTEGER NOT NULL, grid_z INTEGER NOT NULL,
  waves INTEGER NOT NULL, wave_size INTEGER NOT NULL, schedule TEXT NOT NULL,
  checks INTEGER NOT NULL, seed INTEGER NOT NULL, target TEXT NOT NULL,
  programs INTEGER, ops INTEGER, accesses INTEGER, seconds REAL,
  errors INTEGER, warnings INTEGER);
CREATE TABLE sources(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, text TEXT);
CREATE TABLE sites(
  id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL REFERENCES sources(id),
  line INTEGER NOT NULL, col INTEGER NOT NULL, function TEXT, op TEXT NOT NULL);
CREATE TABLE tensors(
  id INTEGER PRIMARY KEY, launch_id INTEGER NOT NULL REFERENCES launches(id),
  arg INTEGER, buffer INTEGER NOT NULL, name TEXT NOT NULL, dtype TEXT NOT NULL,
  elem_bytes INTEGER NOT NULL, shape TEXT NOT NULL, strides TEXT NOT NULL,
  view_offset INTEGER NOT NULL, numel INTEGER NOT NULL, contiguous INTEGER NOT NULL);
CREATE TABLE programs(
  launch_id INTEGER NOT NULL, program INTEGER NOT NULL,
  pid_x INTEGER NOT NULL, pid_y INTEGER NOT NULL, pid_z INTEGER NOT NULL,
  ops INTEGER NOT NULL, accesses INTEGER NOT NULL, diagnostics INTEGER NOT NULL,
  PRIMARY KEY(launch_id, program)) WITHOUT ROWID;
CREATE TABLE ops(
  id INTEGER PRIMARY KEY, launch_id INTEGER NOT NULL, program INTEGER NOT NULL,
  seq INTEGER NOT NULL, kind INTEGER NOT NULL, site_id INTEGER NOT NULL, tensor_id INTEGER,
  rows INTEGER NOT NULL, cols INTEGER NOT NULL, waves INTEGER NOT NULL, rank INTEGER NOT NULL,
  lanes INTEGER NOT NULL, active INTEGER NOT NULL, oob INTEGER NOT NULL,
  has_other INTEGER NOT NULL, first INTEGER NOT NULL, lo INTEGER, hi INTEGER,
  mask BLOB, addrs BLOB NOT NULL);
CREATE TABLE events(
  id INTEGER PRIMARY KEY, launch_id INTEGER NOT NULL, program INTEGER NOT NULL,
  after_seq INTEGER NOT NULL, kind TEXT NOT NULL, site_id INTEGER, name TEXT, text TEXT);
CREATE TABLE diagnostics(
  id INTEGER PRIMARY KEY, launch_id INTEGER NOT NULL, kind TEXT NOT NULL,
  severity TEXT NOT NULL, headline TEXT NOT NULL, kernel TEXT, file TEXT, line INTEGER,
  program INTEGER, pid_x INTEGER, pid_y INTEGER, pid_z INTEGER,
  tensor_id INTEGER, op_id INTEGER, lanes TEXT NOT NULL, offsets TEXT NOT NULL,
  detail TEXT, hint TEXT, json TEXT NOT NULL);
)sql";

// Indexes are built when a launch ends: maintaining them row by row would slow the writer.
inline constexpr const char* index_sql = R"sql(
CREATE INDEX IF NOT EXISTS ops_by_program ON ops(launch_id, program, seq);
CREATE INDEX IF NOT EXISTS ops_by_tensor ON ops(tensor_id);
CREATE INDEX IF NOT EXISTS events_by_program ON events(launch_id, program, after_seq);
)sql";

}  // namespace bv::detail::trace

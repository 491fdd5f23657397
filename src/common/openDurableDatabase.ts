import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { requireOptional } from "./requireOptional.js";

/**
 * A SQLite file where an acknowledged write survives `kill -9` (WAL, synchronous FULL), with `schema`
 * applied. better-sqlite3 is loaded here, not at import: only the parts that keep books need it.
 */
export function openDurableDatabase(file: string, schema: string, neededBy: string): Database.Database {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const SQLite = requireOptional<typeof Database>("better-sqlite3", neededBy);
  const db = new SQLite(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
  db.exec(schema);
  return db;
}

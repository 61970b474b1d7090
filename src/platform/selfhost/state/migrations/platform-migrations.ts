import type { Migrations } from "../../../../shared/database/migrator.js";
import { migration as postgres0001 } from "./postgres/0001_platform.js";
import { migration as postgres0002 } from "./postgres/0002_manifest_notify.js";
import { migration as postgres0003 } from "./postgres/0003_session_assets_by_hash.js";
import { migration as postgres0004 } from "./postgres/0004_site_aliases.js";
import { migration as postgres0005 } from "./postgres/0005_quota_charges.js";
import { migration as postgres0006 } from "./postgres/0006_session_hashes.js";
import { migration as postgres0007 } from "./postgres/0007_session_published.js";
import { migration as postgres0008 } from "./postgres/0008_manifest_notify_project.js";
import { migration as postgres0009 } from "./postgres/0009_manifests.js";
import { migration as postgres0010 } from "./postgres/0010_delta_sessions.js";
import { migration as postgres0011 } from "./postgres/0011_session_hashes_by_hash.js";
import { migration as postgres0012 } from "./postgres/0012_charge_exact.js";
import { migration as postgres0013 } from "./postgres/0013_manifest_hashes.js";
import { migration as postgres0014 } from "./postgres/0014_session_assets_by_path.js";
import { migration as sqlite0001 } from "./sqlite/0001_platform.js";
import { migration as sqlite0002 } from "./sqlite/0002_session_published.js";
import { migration as sqlite0003 } from "./sqlite/0003_manifests.js";
import { migration as sqlite0004 } from "./sqlite/0004_delta_sessions.js";
import { migration as sqlite0005 } from "./sqlite/0005_session_hashes_by_hash.js";
import { migration as sqlite0006 } from "./sqlite/0006_charge_exact.js";
import { migration as sqlite0007 } from "./sqlite/0007_manifest_hashes.js";
import { migration as sqlite0008 } from "./sqlite/0008_session_assets_by_path.js";

// The platform database's migrations, one file each under sqlite/ and postgres/, applied in the
// order of their names by the shared Migrator (shared/database/migrator.ts). Never edit one that
// has shipped; add the next, on both engines, and the table's type to platform-tables.ts.

/** The Migrator's table of applied migrations, on both engines. */
export const PLATFORM_MIGRATION_TABLE = "platform_migration";

/** Migrations of the platform database on SQLite (platform.sqlite). */
export const SQLITE_PLATFORM_MIGRATIONS: Migrations = {
  "0001_platform": sqlite0001,
  "0002_session_published": sqlite0002,
  "0003_manifests": sqlite0003,
  "0004_delta_sessions": sqlite0004,
  "0005_session_hashes_by_hash": sqlite0005,
  "0006_charge_exact": sqlite0006,
  "0007_manifest_hashes": sqlite0007,
  "0008_session_assets_by_path": sqlite0008,
};

/** Migrations of the platform database on PostgreSQL (in the `platform` schema). */
export const POSTGRES_PLATFORM_MIGRATIONS: Migrations = {
  "0001_platform": postgres0001,
  "0002_manifest_notify": postgres0002,
  "0003_session_assets_by_hash": postgres0003,
  "0004_site_aliases": postgres0004,
  "0005_quota_charges": postgres0005,
  "0006_session_hashes": postgres0006,
  "0007_session_published": postgres0007,
  "0008_manifest_notify_project": postgres0008,
  "0009_manifests": postgres0009,
  "0010_delta_sessions": postgres0010,
  "0011_session_hashes_by_hash": postgres0011,
  "0012_charge_exact": postgres0012,
  "0013_manifest_hashes": postgres0013,
  "0014_session_assets_by_path": postgres0014,
};

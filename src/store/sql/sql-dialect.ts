import type { Kysely, Transaction } from "kysely";
import type { CompleteDeployInput, ProjectRecord } from "../../core/ports/index.js";
import type { MetadataTables } from "./schema.js";

/** What differs between the databases the store runs on. */
export interface SqlDialect {
  /**
   * Makes the rest of the transaction the only one working on these hostnames (their holders and
   * releases): PostgreSQL takes advisory transaction locks; SQLite has one writer at a time
   * already.
   */
  lockHostnames(trx: Transaction<MetadataTables>, hostnames: Array<string | null | undefined>): Promise<void>;
  /** True when `error` is a unique constraint refusing a row. */
  isUniqueViolation(error: unknown): boolean;
  /**
   * A deploy's completion in one statement, where the engine has one for it (PostgreSQL); the
   * project after it, or undefined when the deploy was not pending. Absent: the store's
   * transaction of three statements.
   */
  completeDeploy?(db: Kysely<MetadataTables>, input: CompleteDeployInput): Promise<ProjectRecord | undefined>;
}

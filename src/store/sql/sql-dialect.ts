import type { Transaction } from "kysely";
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
}

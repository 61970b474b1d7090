import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { rowsCharge } from "../quotas/quota-charges.js";
import {
  deployed,
  hashOf,
  manifestOf,
  testPlatform,
  type TestPlatform,
} from "../../../../test/support/test-platform.js";
import { planDelta } from "./delta-open.js";

let t: TestPlatform;
afterEach(() => t.remove());

/** `count` files, `page-<i>` each with content `text <i>`. */
function filesOf(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`page-${i}`] = `text ${i}`;
  return files;
}

it("planDelta: the paths added or changed and those removed, the whole manifest's count and row charge; the base read in pages and the entries compared in slices, the event loop free between them", async () => {
  t = await testPlatform();
  const files = filesOf(3_000);
  await deployed(t, "blue", "r1", files);
  const next = { ...files, "page-7": "changed", added: "new" };
  delete (next as Record<string, string>)["page-9"];
  const entries = manifestOf(next);
  const pacer = new Pacer(0);
  const plan = await planDelta(t.database, "blue", entries, pacer);
  expect(plan?.changed.map((entry) => entry.path).sort()).toEqual(["/added", "/page-7"]);
  expect(plan?.removed).toEqual(["/page-9"]);
  expect(plan?.fileCount).toBe(3_000);
  expect(plan?.rowBytes).toBe(await rowsCharge(entries, new Pacer()));
  // Three pages of the base, and a pause every 256 entries compared at least.
  expect(pacer.pauses).toBeGreaterThanOrEqual(2 + Math.floor(entries.length / 256));
});

it("planDelta: a base is read once (a complete manifest never changes): a second plan reads none of its rows", async () => {
  t = await testPlatform();
  const files = filesOf(40);
  await deployed(t, "blue", "r1", files);
  const entries = manifestOf({ ...files, "page-1": "changed" });
  const first = await planDelta(t.database, "blue", entries, new Pacer());
  // Were it read again, the rows gone would make every path an addition (over MAX_DELTA).
  await sql`UPDATE manifest_files SET removed = 1`.execute(t.database.db);
  const second = await planDelta(t.database, "blue", entries, new Pacer());
  expect(second).toEqual(first);
  expect(second?.changed.map((entry) => entry.hash)).toEqual([hashOf("changed")]);
});

it("planDelta: none for a project without a full manifest, nor for a change over MAX_DELTA of its files", async () => {
  t = await testPlatform();
  const files = filesOf(40);
  expect(await planDelta(t.database, "blue", manifestOf(files), new Pacer())).toBeUndefined();
  await deployed(t, "blue", "r1", files);
  const changed = { ...files };
  for (let i = 0; i < 11; i++) changed[`page-${i}`] = `changed ${i}`;
  expect(await planDelta(t.database, "blue", manifestOf(changed), new Pacer())).toBeUndefined();
  for (let i = 0; i < 10; i++) delete changed[`page-${i}`];
  expect(await planDelta(t.database, "blue", manifestOf(changed), new Pacer())).toBeUndefined();
  const ten = { ...files };
  for (let i = 0; i < 10; i++) ten[`page-${i}`] = `changed ${i}`;
  expect((await planDelta(t.database, "blue", manifestOf(ten), new Pacer()))?.changed).toHaveLength(10);
});

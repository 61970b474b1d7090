// A helper of the client's unit tests (test-*.ts files are not built into dist/).
import { expect } from "vitest";
import { CliError } from "./errors.js";

/** Waits for `promise` to fail, checks that what it threw is an `errorClass`, and returns that. */
export async function rejectionOf<E>(
  promise: Promise<unknown>,
  errorClass: abstract new (...args: never[]) => E,
): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(errorClass);
  return error as E;
}

/** The CliError `promise` fails with (the test fails if it succeeds or throws anything else). */
export function refusal(promise: Promise<unknown>): Promise<CliError> {
  return rejectionOf(promise, CliError);
}

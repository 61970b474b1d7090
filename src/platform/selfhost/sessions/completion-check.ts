import { InvalidCompletionError } from "../../../core/errors.js";
import type { PublishInput } from "../../../core/ports/index.js";
import type { BlobReader } from "../content/blob-reader.js";
import type { PlatformDatabase } from "../state/platform-db.js";
import { readSessionRules } from "../sites/revision-rules.js";
import { isPublished } from "../sites/manifest-staging.js";
import type { UploadTokens } from "./upload-tokens.js";
import type { UploadSessions } from "./upload-sessions.js";

/**
 * What a publish checks before it writes anything: the completion token is valid and of this
 * session, the session is the project's and live, and it has all its content and its site rules
 * parse; a session published already (its rows are gone) may only publish the same revision again. Returns those rules (JSON), when the revision has any to record.
 */
export async function checkCompletion(
  options: { db: PlatformDatabase; sessions: UploadSessions; tokens: UploadTokens; reader: BlobReader },
  input: PublishInput,
  now: number,
): Promise<{ rules: string | undefined }> {
  const { db, sessions, tokens, reader } = options;
  const tokenSession = await tokens.verify("completion", input.completionJwt, new Date(now));
  if (tokenSession === undefined) {
    throw new InvalidCompletionError("completion token is invalid or expired");
  }
  if (tokenSession !== input.sessionId) {
    throw new InvalidCompletionError("completion token belongs to another deploy");
  }
  const session = await sessions.getWithMissing(input.sessionId);
  if (!session || session.projectSlug !== input.projectSlug) {
    throw new InvalidCompletionError("upload session is gone; prepare the deploy again");
  }
  if (session.expiresAt <= now) {
    throw new InvalidCompletionError("upload session expired; prepare the deploy again");
  }
  if (session.publishedRevision !== undefined) {
    // Its rows went with that publish: only the same publish again (its revision kept) is whole.
    if (
      session.publishedRevision === input.revisionId &&
      (await isPublished(db, input.projectSlug, input.revisionId))
    ) {
      return { rules: undefined };
    }
    throw new InvalidCompletionError("upload session was published already; prepare the deploy again");
  }
  const { missing } = session;
  if (missing > 0) throw new InvalidCompletionError(`${missing} assets are still missing; upload them first`);
  // Parsed before anything is written: a revision whose rules do not parse is never published.
  return { rules: await readSessionRules(db, reader, input.sessionId) };
}

import { z } from "zod";
import { DEPLOY_MESSAGE_MAX, deployMessageProblem, HEX64, previewAliasProblem } from "../../core/formats.js";
import { MAX_RULES_FILE_BYTES } from "../../core/site-rules/index.js";

/**
 * Request bodies of the API. These schemas validate requests and generate the OpenAPI document,
 * so the reference cannot drift from what the server accepts.
 */
const hex64 = (description: string) => z.string().regex(HEX64).describe(description);

export const identitySchema = z.object({
  projectHash: hex64("64 hexadecimal characters identifying the deployed folder"),
  anonFingerprint: hex64("64 hexadecimal characters identifying the anonymous client install"),
});

export const createProjectSchema = identitySchema;

const manifestSchema = z
  .record(
    z.string(),
    z.object({
      hash: z.string().describe("32 lowercase hex: first half of BLAKE3(base64(bytes) + extension)"),
      size: z.number().int().describe("size in bytes"),
    }),
  )
  .describe('asset paths ("/" + projectSlug + "/" + path) to their hash and size');

const skipUnchanged = z
  .boolean()
  .optional()
  .describe(
    "true: when production already serves exactly this manifest, answer { unchanged: true, … } and open nothing (the project's expiry is renewed)",
  );

const manifestDigest = hex64(
  "the SHA-256 of the manifest's entries (contract §3), sent instead of the manifest: answered { unchanged: true, … } when production was deployed from it, else 409 MANIFEST_CHANGED",
);

/** The two forms of a prepare body, as documented: with the manifest, or naming it by digest. */
export const prepareSchema = z.union([
  identitySchema.extend({ manifest: manifestSchema, skipUnchanged }),
  identitySchema.extend({ manifestDigest, skipUnchanged: z.literal(true) }),
]);

/**
 * What the prepare route checks with zod: the identity fields. The manifest is checked by the core
 * (`parseManifestSliced`: every rule of contract §2, the shape above included, INVALID_MANIFEST),
 * in slices; zod's pass over 100,000 entries held the thread for 200 ms in one go.
 */
export const prepareRequestSchema = identitySchema.extend({
  // Optional here: a prepare by `manifestDigest` has none; without either, the core says INVALID_MANIFEST.
  manifest: z.unknown().optional(),
  skipUnchanged,
  manifestDigest: manifestDigest.optional(),
});

export const deploySchema = identitySchema.extend({
  deployId: z.string().min(1).max(200).describe("the id returned by prepare"),
  completionJwt: z.string().min(1).max(8192).describe("the completion token issued by the upload service"),
  preview: z
    .boolean()
    .optional()
    .describe("true: publish the revision on its revision URL only, production left where it is"),
  siteRules: z
    .object({
      redirects: z
        .string()
        .max(MAX_RULES_FILE_BYTES)
        .optional()
        .describe("the text of the site's _redirects"),
      headers: z.string().max(MAX_RULES_FILE_BYTES).optional().describe("the text of the site's _headers"),
    })
    .strict()
    .optional()
    .describe(
      "the site's rules files, as in the manifest; a platform that never sees asset bytes (Cloudflare) applies them from here",
    ),
  message: z
    .string()
    .max(DEPLOY_MESSAGE_MAX * 2)
    .superRefine((value, ctx) => {
      const problem = deployMessageProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional()
    .describe(
      `what the deploy is (\`deploy --message\`): 1 to ${DEPLOY_MESSAGE_MAX} characters on one line, stored with the revision`,
    ),
  alias: z
    .string()
    .max(100)
    .superRefine((value, ctx) => {
      const problem = previewAliasProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional()
    .describe(
      "a preview alias: <alias>--<slug>.<domain> serves this revision from now on (deploy --alias); at most 20 per project",
    ),
});

export const promoteSchema = identitySchema.extend({
  // Its format is judged by the core, which answers INVALID_REQUEST naming it.
  revisionId: z.string().describe("a kept revision of the project (10 of a-z 0-9)"),
});

export const assignDomainSchema = identitySchema.extend({
  // Length and shape are the domain rules' to judge, so they answer INVALID_DOMAIN.
  domain: z.string().describe("a hostname: a vanity name under the sites domain, or external"),
});

const publicProject = z.object({
  projectSlug: z.string(),
  hostname: z.string(),
  generatedHostname: z.string(),
  customHostname: z.string().nullable(),
  customHostnameStatus: z
    .enum(["pending", "active"])
    .nullable()
    .describe("pending until DNS proves control of the custom hostname; null without one"),
  productionUrl: z.string(),
  revisionId: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
});

const revisionSummary = z.object({
  revisionId: z.string(),
  createdAt: z.string(),
  files: z.number().int(),
  bytes: z.number().int(),
  production: z.boolean().describe("the revision the project's hostnames serve"),
  preview: z.boolean().describe("completed as a preview"),
  revisionUrl: z.string(),
  message: z.string().nullable().describe("the deploy's message, null without one"),
});

/** Response bodies, for the reference only. */
export const responses = {
  createProject: z.object({ project: publicProject, apiToken: z.string() }),
  prepare: z.object({
    deployId: z.string(),
    accountId: z.string(),
    revisionId: z.string(),
    uploadJwt: z.string(),
    buckets: z.array(z.array(z.string())),
    project: publicProject,
    urls: z.object({ upload: z.string(), production: z.string(), revision: z.string() }),
    expiresAt: z.string(),
  }),
  prepareUnchanged: z.object({
    unchanged: z.literal(true),
    revisionId: z.string().describe("the production revision, which already serves this manifest"),
    project: publicProject,
    urls: z.object({ production: z.string(), revision: z.string() }),
  }),
  deploy: z.object({
    revisionId: z.string(),
    productionUrl: z.string(),
    revisionUrl: z.string(),
    aliasUrl: z
      .string()
      .optional()
      .describe("with an alias: the stable preview URL now serving this revision"),
    project: publicProject,
  }),
  state: z.object({ project: publicProject, revisions: z.array(revisionSummary).describe("newest first") }),
  promote: z.object({
    revisionId: z.string(),
    productionUrl: z.string(),
    revisionUrl: z.string(),
    project: publicProject,
  }),
  assignDomain: z.object({
    domain: z.object({
      hostname: z.string(),
      cnameTarget: z.string(),
      status: z.enum(["pending", "active"]),
      records: z
        .array(z.object({ type: z.enum(["CNAME", "TXT"]), name: z.string(), value: z.string() }))
        .describe("DNS records to create (either one proves control); empty under the sites domain"),
      checkedAt: z.string().nullable(),
      message: z.string().nullable().describe("what the last DNS check found, or why it could not look"),
      pendingUntil: z.string().nullable().describe("when a pending claim lapses"),
    }),
    project: publicProject,
  }),
  resetDomain: z.object({ project: publicProject }),
  deleteProject: z.object({ projectSlug: z.string(), deleted: z.literal(true) }),
  health: z.object({ status: z.literal("ok") }),
  limits: z.object({
    maxFiles: z.number().int().describe("assets a manifest may hold"),
    maxFileBytes: z.number().int().describe("bytes of one asset"),
    maxRequestBytes: z
      .number()
      .int()
      .describe("bytes of an API request body (the prepare manifest must fit)"),
    maxManifestBytes: z.number().int().describe("bytes of UTF-8 a manifest's paths may take together"),
    maxPathBytes: z.number().int().describe("bytes of UTF-8 of one manifest path, after the slug"),
    projectQuotaBytes: z.number().int().describe("distinct content a project keeps; 0: no quota"),
    pendingQuotaBytes: z
      .number()
      .int()
      .describe("bytes an address may have prepared, not deployed; 0: no quota"),
    clientQuotaBytes: z
      .number()
      .int()
      .describe("bytes the projects one address created recently may keep together; 0: no quota"),
    projectTtlSeconds: z
      .number()
      .int()
      .describe("a project expires this long after its last deploy; 0: never"),
    deployTtlSeconds: z.number().int().describe("a prepared deploy expires this long after prepare"),
    platform: z
      .enum(["built-in", "cloudflare"])
      .describe("what serves the sites; the client warns of rules Cloudflare applies otherwise"),
  }),
  healthz: z.object({ status: z.enum(["ok", "degraded"]), checks: z.record(z.string(), z.string()) }),
  error: z.object({ error: z.union([z.string(), z.object({ code: z.string(), message: z.string() })]) }),
};

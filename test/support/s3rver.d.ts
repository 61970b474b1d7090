// s3rver ships no types: what the tests use of it.
declare module "s3rver" {
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    configureBuckets?: { name: string }[];
  }
  /** Its filesystem store: what `fixFirstByteRange` wraps. */
  export interface S3rverStore {
    getObject(
      bucket: string,
      key: string,
      options?: { start?: number; end?: number },
    ): Promise<S3rverObject | null>;
    getResourcePath(bucket: string, key: string, resource: string): string;
  }
  export interface S3rverObject {
    content: NodeJS.ReadableStream | null;
    range?: { start: number; end: number };
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    store: S3rverStore;
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}

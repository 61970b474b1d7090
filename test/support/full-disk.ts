import type * as FsPromises from "node:fs/promises";

/**
 * `node:fs/promises` on a disk that fills up while a bucket arrives (this machine's disk cannot be
 * filled for a test): while `disk.full` is set, creating a temporary blob file fails with ENOSPC as
 * the system would; everything else is the real file system. For `vi.mock`'s factory.
 */
export function fullDiskFs(fs: typeof FsPromises, disk: { full: boolean }): typeof FsPromises {
  const open = (async (path: Parameters<typeof fs.open>[0], ...rest: unknown[]) => {
    if (disk.full && String(path).includes("/platform/tmp/")) {
      throw Object.assign(new Error(`ENOSPC: no space left on device, open '${String(path)}'`), {
        code: "ENOSPC",
        errno: -28,
        syscall: "open",
      });
    }
    return (fs.open as (...args: unknown[]) => ReturnType<typeof fs.open>)(path, ...rest);
  }) as typeof fs.open;
  return { ...fs, open, default: { ...fs, open } } as typeof FsPromises;
}

import type * as FsPromises from "node:fs/promises";

/** How the simulated disk fails: `full` refuses to create files, `fillsAfter` refuses writes past a byte count. */
export interface SimulatedDisk {
  full: boolean;
  /** Bytes a temporary file may take before its writes fail with ENOSPC; undefined: no limit. */
  fillsAfter?: number;
}

function enospc(syscall: string, path: string): Error {
  return Object.assign(new Error(`ENOSPC: no space left on device, ${syscall} '${path}'`), {
    code: "ENOSPC",
    errno: -28,
    syscall,
  });
}

/**
 * `node:fs/promises` on a disk that fills up while a bucket arrives (this machine's disk cannot be
 * filled for a test): while `disk.full` is set, creating a temporary file under the platform's
 * `tmp/` fails with ENOSPC as the system would; with `disk.fillsAfter`, such a file is created
 * but its writes fail once it would hold more than that many bytes (the disk fills mid-pack).
 * Everything else is the real file system. For `vi.mock`'s factory.
 */
export function fullDiskFs(fs: typeof FsPromises, disk: SimulatedDisk): typeof FsPromises {
  const open = (async (path: Parameters<typeof fs.open>[0], ...rest: unknown[]) => {
    const temporary = String(path).includes("/platform/tmp/");
    if (disk.full && temporary) throw enospc("open", String(path));
    const handle = await (fs.open as (...args: unknown[]) => ReturnType<typeof fs.open>)(path, ...rest);
    const limit = disk.fillsAfter;
    if (!temporary || limit === undefined) return handle;
    const write = handle.write.bind(handle) as (...args: unknown[]) => Promise<{ bytesWritten: number }>;
    // Positional writes (buffer, offset, length, position), as the pack writer makes them.
    (handle as unknown as { write: unknown }).write = async (...args: unknown[]) => {
      const [, , length, position] = args as [unknown, number, number, number];
      if (position + length > limit) throw enospc("write", String(path));
      return write(...args);
    };
    return handle;
  }) as typeof fs.open;
  return { ...fs, open, default: { ...fs, open } } as typeof FsPromises;
}

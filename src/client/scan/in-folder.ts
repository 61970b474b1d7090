/**
 * Runs the synchronous `work` with `folder` as the process's working directory, handing it true,
 * then goes back; hands it false, in place, where the directory cannot be changed (a worker
 * thread). A walk that stats paths relative to the folder spares the kernel the walk through the
 * folder's own path at every file, as rsync and find do: 50,000 `lstat`s took 10% less CPU so.
 * `work` must not wait on anything: nothing else may run while the directory is not the user's.
 */
export function inFolder<T>(folder: string, work: (relative: boolean) => T): T {
  let previous: string;
  try {
    previous = process.cwd();
    process.chdir(folder);
  } catch {
    return work(false);
  }
  try {
    return work(true);
  } finally {
    try {
      process.chdir(previous);
    } catch {
      // The directory it was started in is gone: relative paths failed there anyway.
    }
  }
}

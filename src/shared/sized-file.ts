import { open, type FileHandle } from "node:fs/promises";

/** Opens a file for reading with its size read at once; closed again if its size cannot be read. */
export async function openSized(path: string): Promise<{ file: FileHandle; size: number }> {
  const file = await open(path, "r");
  try {
    return { file, size: (await file.stat()).size };
  } catch (error) {
    await file.close();
    throw error;
  }
}

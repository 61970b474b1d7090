import { readFileSync } from "node:fs";
import { REPO_ROOT } from "./paths.js";
import type { ProfileSummary } from "./types.js";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

/** The parts of a V8 .cpuprofile (what `node --cpu-prof` writes) that the summary reads. */
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A function's name and where it is, relative to the repository when it is the project's own. */
function frameKey(frame: CallFrame): { key: string; name: string; location: string } {
  const name = frame.functionName || (frame.url ? "(anonymous)" : "(native)");
  const url = frame.url.replace(`file://${REPO_ROOT}/`, "").replace(/^file:\/\//, "");
  const location = url ? `${url}:${frame.lineNumber + 1}` : "";
  return { key: `${name} ${location}`, name, location };
}

/**
 * Reads a CPU profile and lists the functions that took the most time themselves (self time), with
 * the share of samples each was on the stack for (total time), and the files that took the most.
 */
export function summarizeProfile(path: string, name: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0) || 1;

  const selfByKey = new Map<string, { name: string; location: string; us: number }>();
  const totalByKey = new Map<string, number>();
  const onStack = new Map<string, number>();
  // Inclusive time of a node; a function already on the stack (recursion) is not counted twice.
  const visit = (node: ProfileNode): number => {
    const frame = frameKey(node.callFrame);
    const own = selfUs.get(node.id) ?? 0;
    const entry = selfByKey.get(frame.key) ?? { name: frame.name, location: frame.location, us: 0 };
    entry.us += own;
    selfByKey.set(frame.key, entry);
    onStack.set(frame.key, (onStack.get(frame.key) ?? 0) + 1);
    let inclusive = own;
    for (const child of node.children ?? []) {
      const childNode = byId.get(child);
      if (childNode) inclusive += visit(childNode);
    }
    onStack.set(frame.key, onStack.get(frame.key)! - 1);
    if (onStack.get(frame.key) === 0) totalByKey.set(frame.key, (totalByKey.get(frame.key) ?? 0) + inclusive);
    return inclusive;
  };
  const root = profile.nodes[0];
  if (root) visit(root);

  const ranked = [...selfByKey.entries()].sort((a, b) => b[1].us - a[1].us).slice(0, top);
  return {
    name,
    file: path.replace(`${REPO_ROOT}/`, ""),
    totalMs: totalUs / 1000,
    top: ranked.map(([key, entry]) => ({
      function: entry.name,
      location: entry.location,
      selfMs: entry.us / 1000,
      selfPercent: (entry.us / totalUs) * 100,
      totalPercent: ((totalByKey.get(key) ?? 0) / totalUs) * 100,
    })),
  };
}

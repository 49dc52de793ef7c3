/**
 * Where each CPU goes on screen: sockets stacked, LLC boxes in a grid inside each
 * socket, cores inside an LLC, and a core's SMT threads side by side; with
 * SHARED_RUNQ on, each LLC's shard lanes run beneath its cores, one per shard;
 * with the power model on, each socket's header is taller and wide enough for its
 * frequency and power bar.
 * Pure: unit tested without a DOM.
 */
import type { Machine, ShardInfo } from '../engine/protocol';
import { LANE, LANE_MIN_WIDTH } from './lanes';
import { SOCKET_POWER_HEADER } from './power';

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface CpuCell extends Box {
  readonly cpu: number;
  /** Its core (`MachineCpu.core`). */
  readonly core: number;
}

export interface LabelledBox extends Box {
  readonly id: number;
  readonly label: string;
}

/** A shard's lane: `shard` is its position in the bridge's shard list (and in each frame's). */
export interface LaneBox extends Box {
  readonly shard: number;
  readonly llc: number;
  readonly index: number;
}

export interface MachineLayout {
  readonly width: number;
  readonly height: number;
  readonly cell: number;
  readonly sockets: readonly LabelledBox[];
  readonly llcs: readonly LabelledBox[];
  readonly cores: readonly LabelledBox[];
  readonly cpus: readonly CpuCell[];
  readonly lanes: readonly LaneBox[];
}

const GAP = 4;
const PAD = 6;
const HEADER = 18;
const DEPTH_STRIP = 8;

export function cellSizeFor(nCpus: number): number {
  if (nCpus <= 16) return 64;
  if (nCpus <= 48) return 34;
  if (nCpus <= 128) return 24;
  if (nCpus <= 256) return 16;
  return 12;
}

/** Height of an LLC's lanes for `n` shards: one lane each, under the cores. */
function laneBlockHeight(n: number): number {
  return n === 0 ? 0 : LANE.gap + n * LANE.height + (n - 1) * LANE.gap;
}

/** The tallest a machine may grow to when there is width to spare (a projector's screen). */
export const GROW_MAX_HEIGHT = 560;
/** How much larger than `cellSizeFor` a cell may grow. */
export const GROW_MAX_FACTOR = 2.4;
/** In presenter mode, how much larger the cells must get for the rows to be rearranged. */
const REARRANGE_MIN_GAIN = 1.25;

/**
 * Lays the machine out in `width`: cells of `cellSizeFor` size, grown (up to
 * `GROW_MAX_FACTOR` times, and `GROW_MAX_HEIGHT` tall) while the drawing still fits
 * the width, so a small machine fills a wide panel instead of sitting in a corner.
 * By default growing keeps the rows of CPUs (a wide panel keeps a shallow drawing);
 * with `largest`, for a projector, the rows may be rearranged into more of them if
 * that gives larger cells (an LLC per row rather than three side by side), within
 * `maxHeight` (what the screen shows below the toolbar).
 */
export function computeLayout(
  machine: Machine,
  width: number,
  shards: readonly ShardInfo[] = [],
  power = false,
  grow = true,
  largest = false,
  maxHeight = GROW_MAX_HEIGHT,
): MachineLayout {
  const base = cellSizeFor(machine.cpus.length);
  const first = layoutWithCell(machine, width, shards, power, base);
  if (!grow || first.width > width || first.height >= maxHeight) return first;
  const rows = (layout: MachineLayout) => new Set(layout.cpus.map((cpu) => cpu.y)).size;
  const firstRows = rows(first);
  /** The largest layout that fits, grown from `first`; with `anyRows`, rearranged if need be. */
  const grown = (anyRows: boolean) => {
    let best = first;
    let low = base + 1;
    let high = Math.floor(base * GROW_MAX_FACTOR);
    while (low <= high) {
      const cell = (low + high) >> 1;
      // A larger cell fits in fewer columns: the arrangement of least height that fits.
      const candidate = layoutWithCell(machine, width, shards, power, cell);
      if (candidate.width <= width && candidate.height <= maxHeight && (anyRows || rows(candidate) === firstRows)) {
        best = candidate;
        low = cell + 1;
      } else {
        high = cell - 1;
      }
    }
    return best;
  };
  const shallow = grown(false);
  if (!largest) return shallow;
  // More rows only for clearly larger cells: a few pixels are not worth a taller drawing.
  const rearranged = grown(true);
  return rearranged.cell >= REARRANGE_MIN_GAIN * shallow.cell ? rearranged : shallow;
}

function layoutWithCell(machine: Machine, width: number, shards: readonly ShardInfo[], power: boolean, cell: number): MachineLayout {
  const socketHeader = power ? SOCKET_POWER_HEADER.height : HEADER;
  const powerMinSocketWidth = power ? SOCKET_POWER_HEADER.minWidth : 0;
  // Shards per LLC, in the bridge's order: lane `index` of an LLC is its shard `index`.
  const shardsByLlc = new Map<number, { shard: number; index: number }[]>();
  shards.forEach((info, shard) => {
    const list = shardsByLlc.get(info.llc) ?? [];
    list.push({ shard, index: info.index });
    shardsByLlc.set(info.llc, list);
  });
  const maxShardsPerLlc = Math.max(0, ...[...shardsByLlc.values()].map((list) => list.length));
  const laneBlock = laneBlockHeight(maxShardsPerLlc);
  const minLlcWidth = maxShardsPerLlc > 0 ? LANE_MIN_WIDTH + 2 * PAD : 0;
  const threads = Math.max(1, machine.threads_per_core);
  // Group CPUs: socket → llc → core → threads, in hardware order.
  const llcsBySocket = new Map<number, number[]>();
  const coresByLlc = new Map<number, number[]>();
  const cpusByCore = new Map<number, number[]>();
  machine.cpus.forEach((info, cpu) => {
    const llcs = llcsBySocket.get(info.socket) ?? [];
    if (!llcs.includes(info.llc)) llcs.push(info.llc);
    llcsBySocket.set(info.socket, llcs);
    const cores = coresByLlc.get(info.llc) ?? [];
    if (!cores.includes(info.core)) cores.push(info.core);
    coresByLlc.set(info.llc, cores);
    const cpus = cpusByCore.get(info.core) ?? [];
    cpus.push(cpu);
    cpusByCore.set(info.core, cpus);
  });
  for (const list of [...llcsBySocket.values(), ...coresByLlc.values()]) list.sort((a, b) => a - b);
  for (const list of cpusByCore.values()) list.sort((a, b) => (machine.cpus[a]?.thread ?? 0) - (machine.cpus[b]?.thread ?? 0));

  const coreWidth = threads * cell + (threads - 1) * 2 + 2 * 3;
  const coreHeight = cell + DEPTH_STRIP + 2 * 3;
  const maxCoresPerLlc = Math.max(1, ...[...coresByLlc.values()].map((cores) => cores.length));
  const maxLlcsPerSocket = Math.max(1, ...[...llcsBySocket.values()].map((llcs) => llcs.length));
  const socketIds = [...llcsBySocket.keys()].sort((a, b) => a - b);
  const innerWidth = Math.max(200, width - 2 * PAD);

  // Pick how many sockets, LLCs and cores go per row: the arrangement that fits the
  // width with the least height (ties: the fewer, wider rows of cores). `fitted` is
  // false when only the last resort, one core per row, was left.
  type Arrangement = { socketCols: number; llcCols: number; coreCols: number; height: number; fitted: boolean };
  const arrange = (minSocket: number): Arrangement | undefined => {
    let best: Arrangement | undefined;
    for (let socketCols = 1; socketCols <= Math.min(2, socketIds.length); socketCols++) {
      for (let llcCols = 1; llcCols <= maxLlcsPerSocket; llcCols++) {
        for (let coreCols = maxCoresPerLlc; coreCols >= 1; coreCols--) {
          const llcWidth = Math.max(minLlcWidth, 2 * PAD + coreCols * coreWidth + (coreCols - 1) * GAP);
          const socketWidth = Math.max(minSocket, 2 * PAD + llcCols * llcWidth + (llcCols - 1) * GAP);
          const totalWidth = socketCols * socketWidth + (socketCols - 1) * GAP * 2;
          const fitted = totalWidth <= innerWidth;
          if (!fitted && !(socketCols === 1 && llcCols === 1 && coreCols === 1)) continue;
          const coreRows = Math.ceil(maxCoresPerLlc / coreCols);
          const llcHeight = HEADER + PAD + coreRows * coreHeight + (coreRows - 1) * GAP + laneBlock;
          const llcRows = Math.ceil(maxLlcsPerSocket / llcCols);
          const socketHeight = socketHeader + PAD + llcRows * llcHeight + (llcRows - 1) * GAP;
          const socketRows = Math.ceil(socketIds.length / socketCols);
          const height = socketRows * (socketHeight + 2 * GAP);
          if (!best || (fitted && !best.fitted) || (fitted === best.fitted && height < best.height)) best = { socketCols, llcCols, coreCols, height, fitted };
          break; // the widest core grid that fits is the best for this column count
        }
      }
    }
    return best;
  };
  // The power header's width is a wish: where no arrangement leaves room for it, the
  // cores keep their grid and the header's figures run on past the socket's box.
  let minSocketWidth = powerMinSocketWidth;
  let best = arrange(minSocketWidth);
  if (!best?.fitted && minSocketWidth > 0) {
    minSocketWidth = 0;
    best = arrange(0);
  }
  const { socketCols, llcCols, coreCols } = best ?? { socketCols: 1, llcCols: 1, coreCols: 1 };
  const coreRows = Math.ceil(maxCoresPerLlc / coreCols);
  const llcWidth = Math.max(minLlcWidth, 2 * PAD + coreCols * coreWidth + (coreCols - 1) * GAP);
  const coresHeight = coreRows * coreHeight + (coreRows - 1) * GAP;
  const llcHeight = HEADER + PAD + coresHeight + laneBlock;

  const sockets: LabelledBox[] = [];
  const llcs: LabelledBox[] = [];
  const cores: LabelledBox[] = [];
  const cpus: CpuCell[] = [];
  const lanes: LaneBox[] = [];
  let widest = 0;
  let tallest = 0;
  socketIds.forEach((socket, socketIndex) => {
    const socketLlcs = llcsBySocket.get(socket) ?? [];
    const cols = Math.min(llcCols, socketLlcs.length);
    const rows = Math.ceil(socketLlcs.length / cols);
    const socketWidth = Math.max(minSocketWidth, 2 * PAD + cols * llcWidth + (cols - 1) * GAP);
    const socketHeight = socketHeader + PAD + rows * llcHeight + (rows - 1) * GAP;
    const fullSocketWidth = Math.max(minSocketWidth, 2 * PAD + Math.min(llcCols, maxLlcsPerSocket) * llcWidth + (Math.min(llcCols, maxLlcsPerSocket) - 1) * GAP);
    const fullSocketHeight = socketHeader + PAD + Math.ceil(maxLlcsPerSocket / llcCols) * (llcHeight + GAP) - GAP;
    const x = PAD + (socketIndex % socketCols) * (fullSocketWidth + 2 * GAP);
    const y = PAD + Math.floor(socketIndex / socketCols) * (fullSocketHeight + 2 * GAP);
    sockets.push({ id: socket, label: `socket ${socket}`, x, y, width: socketWidth, height: socketHeight });
    // A header whose figures run on past a narrow socket still lies inside the drawing (the host scrolls).
    widest = Math.max(widest, x + Math.max(socketWidth, powerMinSocketWidth));
    tallest = Math.max(tallest, y + socketHeight);
    socketLlcs.forEach((llc, llcIndex) => {
      const llcX = x + PAD + (llcIndex % cols) * (llcWidth + GAP);
      const llcY = y + socketHeader + Math.floor(llcIndex / cols) * (llcHeight + GAP);
      llcs.push({ id: llc, label: `LLC ${llc}`, x: llcX, y: llcY, width: llcWidth, height: llcHeight });
      const lanesTop = llcY + HEADER + coresHeight + LANE.gap;
      [...(shardsByLlc.get(llc) ?? [])]
        .sort((a, b) => a.index - b.index)
        .forEach(({ shard, index }, laneIndex) => {
          const y = lanesTop + laneIndex * (LANE.height + LANE.gap);
          lanes.push({ shard, llc, index, x: llcX + PAD, y, width: llcWidth - 2 * PAD, height: LANE.height });
        });
      (coresByLlc.get(llc) ?? []).forEach((core, coreIndex) => {
        const coreX = llcX + PAD + (coreIndex % coreCols) * (coreWidth + GAP);
        const coreY = llcY + HEADER + Math.floor(coreIndex / coreCols) * (coreHeight + GAP);
        cores.push({ id: core, label: `core ${core}`, x: coreX, y: coreY, width: coreWidth, height: coreHeight });
        (cpusByCore.get(core) ?? []).forEach((cpu, threadIndex) => {
          cpus.push({ cpu, core, x: coreX + 3 + threadIndex * (cell + 2), y: coreY + 3, width: cell, height: cell });
        });
      });
    });
  });
  cpus.sort((a, b) => a.cpu - b.cpu);
  lanes.sort((a, b) => a.shard - b.shard);
  return { width: widest + PAD, height: tallest + PAD, cell, sockets, llcs, cores, cpus, lanes };
}

/**
 * Task moves on the machine drawing: an arc from the CPU a task left to the one
 * it went to, coloured by distance (SMT, LLC, cross-LLC, cross-NUMA), with a token
 * that travels the arc while the move is new, fading with age. D3, no React.
 */
import { select } from 'd3';
import type { Box, MachineLayout } from './layout';
import type { Distance, MotionView } from '../store/motion';

export const DISTANCE_COLOR: Readonly<Record<Distance, string>> = {
  smt: '#2f855a',
  llc: '#2b6cb0',
  'cross-llc': '#c05621',
  'cross-numa': '#c53030',
};

/** The share of a move's span the token takes to travel its arc. */
const TRAVEL = 0.35;

type Drawn = MotionView['drawn'][number];

/**
 * A move's arc, from the middle of the top edge of the CPU it left to that of the
 * one it went to: between CPUs of a row it stays above the row, clear of the CPU
 * numbers and pids written in the cells.
 */
function moveArc(from: Box, to: Box): ReturnType<typeof arc> {
  return arc(from.x + from.width / 2, from.y, to.x + to.width / 2, to.y);
}

/** The arc's control point: above the straight line, higher for longer moves. */
function arc(x1: number, y1: number, x2: number, y2: number): { d: string; x1: number; y1: number; x2: number; y2: number; cx: number; cy: number; at: (t: number) => [number, number] } {
  const mx = (x1 + x2) / 2;
  const my = (y1 + y2) / 2;
  const length = Math.hypot(x2 - x1, y2 - y1);
  const lift = Math.min(64, 10 + length * 0.2);
  const cx = mx;
  const cy = my - lift;
  return {
    d: `M${x1},${y1}Q${cx},${cy} ${x2},${y2}`,
    x1,
    y1,
    x2,
    y2,
    cx,
    cy,
    at: (t) => [(1 - t) * (1 - t) * x1 + 2 * (1 - t) * t * cx + t * t * x2, (1 - t) * (1 - t) * y1 + 2 * (1 - t) * t * cy + t * t * y2],
  };
}

/**
 * The moves of a large machine, painted on its cells' canvas after the cells (the
 * same arcs and tokens as `drawMotions`), so the SVG stays still while the run plays.
 */
export function paintMotions(ctx: CanvasRenderingContext2D, layout: MachineLayout, view: MotionView): number {
  const cells = new Map(layout.cpus.map((cell) => [cell.cpu, cell]));
  let painted = 0;
  for (const motion of view.drawn) {
    const from = cells.get(motion.from);
    const to = cells.get(motion.to);
    if (!from || !to) continue;
    const path = moveArc(from, to);
    const color = DISTANCE_COLOR[motion.distance];
    ctx.globalAlpha = 0.25 + 0.75 * (1 - motion.age);
    ctx.strokeStyle = color;
    ctx.lineWidth = 3;
    ctx.lineCap = 'round';
    ctx.beginPath();
    ctx.moveTo(path.x1, path.y1);
    ctx.quadraticCurveTo(path.cx, path.cy, path.x2, path.y2);
    ctx.stroke();
    const [tx, ty] = path.at(Math.min(1, motion.age / TRAVEL));
    ctx.beginPath();
    ctx.arc(tx, ty, 6, 0, 2 * Math.PI);
    ctx.fillStyle = color;
    ctx.fill();
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 2;
    ctx.stroke();
    painted += 1;
  }
  ctx.globalAlpha = 1;
  return painted;
}

export function drawMotions(svgElement: SVGSVGElement, layout: MachineLayout, view: MotionView): void {
  const svg = select(svgElement);
  // Over the cells but under their numbers and pids (`drawMachine`'s `cpu-text` layer),
  // and not in the way of clicks.
  const layer = svg
    .selectAll<SVGGElement, string>('g.layer-motions')
    .data(['motions'])
    .join((enter) => enter.insert('g', 'g.layer-cpu-text'))
    .attr('class', 'layer-motions')
    .attr('pointer-events', 'none');
  const cells = new Map(layout.cpus.map((cell) => [cell.cpu, cell]));
  const drawn = view.drawn.filter((motion) => cells.has(motion.from) && cells.has(motion.to));
  const groups = layer
    .selectAll<SVGGElement, Drawn>('g.motion')
    .data(drawn, (motion) => `${motion.atNs}-${motion.pid}-${motion.from}-${motion.to}`)
    .join('g')
    .attr('class', 'motion')
    .attr('data-distance', (motion) => motion.distance)
    .attr('data-cause', (motion) => motion.cause)
    .attr('data-pid', (motion) => motion.pid)
    .attr('opacity', (motion) => 0.25 + 0.75 * (1 - motion.age));
  groups.each(function (motion) {
    const from = cells.get(motion.from)!;
    const to = cells.get(motion.to)!;
    const path = moveArc(from, to);
    const group = select(this);
    const color = DISTANCE_COLOR[motion.distance];
    group
      .selectAll('path.motion-arc')
      .data([0])
      .join('path')
      .attr('class', 'motion-arc')
      .attr('d', path.d)
      .attr('fill', 'none')
      .attr('stroke', color)
      .attr('stroke-width', 3)
      .attr('stroke-linecap', 'round');
    const [tx, ty] = path.at(Math.min(1, motion.age / TRAVEL));
    group
      .selectAll('circle.motion-token')
      .data([0])
      .join('circle')
      .attr('class', 'motion-token')
      .attr('r', 6)
      .attr('cx', tx)
      .attr('cy', ty)
      .attr('fill', color)
      .attr('stroke', '#ffffff')
      .attr('stroke-width', 2);
  });
}

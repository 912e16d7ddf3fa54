/**
 * The run's charts, folded from journal events and drawn as SVG / DOM by the panel itself:
 * the score trajectory, the latest ablation study, the ensemble rounds and the solution tree,
 * plus the budget and the plan being tried.
 *
 * `RunCharts` is pure (fed pages of events); the `draw*` functions build DOM nodes from it.
 */
import { IRunEvent, asRecord } from './models';
import { better, formatScore } from './status';

/** Candidate phases that measure rather than solve (not on the best-so-far line). */
const NOT_SOLUTIONS = new Set(['ablation', 'submission']);

/** One executed candidate. */
export interface ICandidatePoint {
  index: number;
  nodeId: string;
  parentId: string | null;
  phase: string;
  path: string;
  label: string;
  score: number | null;
}

/** One ablation study. */
export interface IAblation {
  path: string;
  t: number | null;
  baseline: number | null;
  bars: { name: string; delta: number }[];
  summary: string;
}

/** One ensemble round. */
export interface IEnsembleRow {
  r: number | null;
  plan: string;
  nodeId: string;
  score: number | null;
}

/** The plan being tried now. */
export interface ICurrentPlan {
  title: string;
  plan: string;
  path: string;
}

/** A path as users read it: `p0` stays `p0`; empty or missing: null. */
export function pathName(path: unknown): string | null {
  if (path === null || path === undefined) {
    return null;
  }
  const text = String(path).trim();
  return text ? text : null;
}

function num(x: unknown): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

function text(x: unknown): string | null {
  return typeof x === 'string' ? x : null;
}

/** What the charts show, folded from events. */
export class RunCharts {
  constructor(public direction: string | null = null) {}

  readonly candidates: ICandidatePoint[] = [];
  /** The latest ablation study of each path, in the order paths first appeared. */
  readonly ablations = new Map<string, IAblation>();
  readonly ensemble: IEnsembleRow[] = [];
  chosen: { nodeId: string; label: string; score: number | null } | null = null;
  plan: ICurrentPlan | null = null;
  /** Wall-clock budget in seconds (from `run_started`'s config), null until known. */
  budgetSeconds: number | null = null;
  metric: string | null = null;

  /** Fold one event in. */
  add(event: IRunEvent): void {
    const d = event.data ?? {};
    const path = pathName(d.path) ?? '';
    switch (event.type) {
      case 'run_started': {
        const wall = num(asRecord(asRecord(d.config).budget).wall_seconds);
        const task = asRecord(d.task);
        this.budgetSeconds = wall ?? this.budgetSeconds;
        this.metric = text(task.metric_name) ?? this.metric;
        this.direction = text(task.direction) ?? this.direction;
        break;
      }
      case 'candidate':
        this.candidates.push({
          index: this.candidates.length + 1,
          nodeId: String(d.node_id ?? d.id ?? `#${this.candidates.length + 1}`),
          parentId: d.parent_id === null || d.parent_id === undefined ? null : String(d.parent_id),
          phase: String(d.phase ?? ''),
          path,
          label: String(d.label ?? ''),
          score: d.ok === false ? null : num(d.score)
        });
        break;
      case 'ablation':
        this.ablations.set(path, {
          path,
          t: num(d.t),
          baseline: num(d.baseline),
          bars: (Array.isArray(d.results) ? d.results : []).map(asRecord).map(r => ({
            name: String(r.name ?? r.block_id ?? '?'),
            delta: num(r.delta) ?? 0
          })),
          summary: String(d.summary ?? '')
        });
        break;
      case 'plan':
        this.plan = {
          title: `Refining block ${d.block_id ?? '?'} (t=${d.t ?? '?'}, k=${d.k ?? '?'})`,
          plan: String(d.plan ?? ''),
          path
        };
        break;
      case 'target':
        this.plan = {
          title: `Target block ${d.block_id ?? '?'} (t=${d.t ?? '?'})`,
          plan: String(d.plan ?? ''),
          path
        };
        break;
      case 'ensemble_plan':
        this.ensemble.push({
          r: num(d.r),
          plan: String(d.plan ?? ''),
          nodeId: String(d.node_id ?? ''),
          score: num(d.score)
        });
        this.plan = { title: `Ensemble round ${d.r ?? '?'}`, plan: String(d.plan ?? ''), path: '' };
        break;
      case 'ensemble_pick':
        this.chosen = {
          nodeId: String(d.chosen ?? ''),
          label: String(d.label ?? d.chosen ?? ''),
          score: num(d.score)
        };
        break;
    }
  }

  /** `(index, score)` of every scored candidate. */
  get points(): [number, number][] {
    return this.candidates
      .filter(c => c.score !== null)
      .map(c => [c.index, c.score as number] as [number, number]);
  }

  /** The best score so far among solutions, at each candidate that improved it. */
  get bestLine(): [number, number][] {
    const out: [number, number][] = [];
    for (const c of this.candidates) {
      if (c.score === null || NOT_SOLUTIONS.has(c.phase)) {
        continue;
      }
      if (out.length === 0 || better(c.score, out[out.length - 1][1], this.direction)) {
        out.push([c.index, c.score]);
      }
    }
    return out;
  }

  /** The best solution candidate's node id. */
  get bestNode(): string | null {
    const line = this.bestLine;
    if (line.length === 0) {
      return null;
    }
    const index = line[line.length - 1][0];
    return this.candidates[index - 1]?.nodeId ?? null;
  }
}

const SVG_NS = 'http://www.w3.org/2000/svg';

function svgEl<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: { [key: string]: string | number } = {},
  text?: string
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    el.setAttribute(k, String(v));
  }
  if (text !== undefined) {
    el.textContent = text;
  }
  return el;
}

function placeholder(text: string): HTMLElement {
  const el = document.createElement('div');
  el.className = 'mlestar-chart-empty';
  el.textContent = text;
  return el;
}

/** The score trajectory: every candidate as a dot, the best-so-far as a step line. */
export function drawTrajectory(charts: RunCharts, width = 520, height = 180): Element {
  const points = charts.points;
  if (points.length === 0) {
    return placeholder('No scored candidate yet.');
  }
  const pad = { l: 52, r: 10, t: 10, b: 28 };
  const xs = points.map(p => p[0]);
  const ys = points.map(p => p[1]);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs, x0 + 1);
  let y0 = Math.min(...ys);
  let y1 = Math.max(...ys);
  if (y1 - y0 < 1e-9) {
    y0 -= 0.01;
    y1 += 0.01;
  }
  const sx = (x: number) => pad.l + ((x - x0) / (x1 - x0)) * (width - pad.l - pad.r);
  const sy = (y: number) => height - pad.b - ((y - y0) / (y1 - y0)) * (height - pad.t - pad.b);
  const svg = svgEl('svg', {
    class: 'mlestar-trajectory',
    viewBox: `0 0 ${width} ${height}`,
    width: '100%',
    height,
    role: 'img',
    'aria-label': 'Score of every candidate'
  });
  svg.append(
    svgEl('line', {
      x1: pad.l,
      y1: height - pad.b,
      x2: width - pad.r,
      y2: height - pad.b,
      class: 'mlestar-axis'
    }),
    svgEl('line', { x1: pad.l, y1: pad.t, x2: pad.l, y2: height - pad.b, class: 'mlestar-axis' }),
    svgEl(
      'text',
      { x: pad.l - 4, y: sy(y1) + 4, 'text-anchor': 'end', class: 'mlestar-tick' },
      formatScore(y1)
    ),
    svgEl(
      'text',
      { x: pad.l - 4, y: sy(y0) + 4, 'text-anchor': 'end', class: 'mlestar-tick' },
      formatScore(y0)
    ),
    svgEl(
      'text',
      { x: (pad.l + width) / 2, y: height - 6, 'text-anchor': 'middle', class: 'mlestar-tick' },
      'candidate #'
    )
  );
  const best = charts.bestLine;
  if (best.length > 0) {
    let d = `M ${sx(best[0][0])} ${sy(best[0][1])}`;
    for (let i = 1; i < best.length; i++) {
      d += ` H ${sx(best[i][0])} V ${sy(best[i][1])}`;
    }
    d += ` H ${sx(x1)}`;
    svg.append(svgEl('path', { d, class: 'mlestar-best-line' }));
  }
  for (const [x, y] of points) {
    const dot = svgEl('circle', { cx: sx(x), cy: sy(y), r: 3, class: 'mlestar-dot' });
    dot.append(svgEl('title', {}, `#${x}: ${formatScore(y)}`));
    svg.append(dot);
  }
  return svg;
}

/** Horizontal bars: each ablation's score change against the baseline, per path. */
export function drawAblations(charts: RunCharts): Element {
  if (charts.ablations.size === 0) {
    return placeholder('No ablation study yet.');
  }
  const box = document.createElement('div');
  for (const study of charts.ablations.values()) {
    const head = document.createElement('div');
    head.className = 'mlestar-chart-caption';
    const parts = [
      study.path ? `path ${study.path}` : null,
      study.t !== null ? `t=${study.t}` : null
    ];
    const where = parts.filter(Boolean).join(', ');
    head.textContent =
      `Ablation${where ? ` (${where})` : ''}` +
      (study.baseline !== null ? ` · baseline ${formatScore(study.baseline)}` : '');
    box.append(head);
    if (study.bars.length === 0) {
      const note = document.createElement('div');
      note.className = 'mlestar-chart-empty';
      note.textContent = study.summary || 'No ablation variant ran.';
      box.append(note);
      continue;
    }
    const width = 520;
    const row = 22;
    const labelW = 170;
    const height = study.bars.length * row + 8;
    const maxAbs = Math.max(...study.bars.map(b => Math.abs(b.delta)), 1e-9);
    const mid = labelW + (width - labelW - 60) / 2;
    const half = (width - labelW - 60) / 2;
    const svg = svgEl('svg', {
      class: 'mlestar-ablation-bars',
      viewBox: `0 0 ${width} ${height}`,
      width: '100%',
      height,
      role: 'img',
      'aria-label': 'Score change when each part is ablated'
    });
    svg.append(svgEl('line', { x1: mid, y1: 0, x2: mid, y2: height, class: 'mlestar-axis' }));
    study.bars.forEach((bar, i) => {
      const y = 4 + i * row;
      const w = (Math.abs(bar.delta) / maxAbs) * half;
      const name = bar.name.length > 26 ? `${bar.name.slice(0, 25)}…` : bar.name;
      svg.append(
        svgEl(
          'text',
          { x: labelW - 6, y: y + 14, 'text-anchor': 'end', class: 'mlestar-tick' },
          name
        ),
        svgEl('rect', {
          x: bar.delta >= 0 ? mid : mid - w,
          y: y + 2,
          width: Math.max(w, 1),
          height: row - 6,
          class: bar.delta >= 0 ? 'mlestar-bar-pos' : 'mlestar-bar-neg'
        }),
        svgEl(
          'text',
          { x: width - 4, y: y + 14, 'text-anchor': 'end', class: 'mlestar-tick' },
          `${bar.delta >= 0 ? '+' : ''}${formatScore(bar.delta)}`
        )
      );
    });
    box.append(svg);
  }
  return box;
}

/** The ensemble rounds as a table; the chosen solution in bold. */
export function drawEnsemble(charts: RunCharts): Element {
  if (charts.ensemble.length === 0 && !charts.chosen) {
    return placeholder('No ensemble round yet (the ensemble comes after the refinement).');
  }
  const table = document.createElement('table');
  table.className = 'mlestar-ensemble';
  const head = table.createTHead().insertRow();
  for (const h of ['round', 'plan', charts.metric ?? 'score', '']) {
    const th = document.createElement('th');
    th.textContent = h;
    head.append(th);
  }
  const body = table.createTBody();
  for (const row of charts.ensemble) {
    const tr = body.insertRow();
    const chosen = charts.chosen !== null && row.nodeId === charts.chosen.nodeId;
    if (chosen) {
      tr.className = 'mlestar-chosen';
    }
    for (const text of [
      row.r === null ? '' : String(row.r),
      row.plan,
      row.score === null ? '' : formatScore(row.score),
      chosen ? '✔ chosen' : ''
    ]) {
      tr.insertCell().textContent = text;
    }
  }
  const box = document.createElement('div');
  box.append(table);
  if (charts.chosen) {
    const pick = document.createElement('div');
    pick.className = 'mlestar-chart-caption';
    pick.textContent =
      `Chosen: ${charts.chosen.label || charts.chosen.nodeId}` +
      (charts.chosen.score !== null ? ` (${formatScore(charts.chosen.score)})` : '');
    box.append(pick);
  }
  return box;
}

/** Candidates nested under their parents; the best marked ★, the ensemble pick ✔. */
export function drawTree(charts: RunCharts, maxNodes = 300): Element {
  if (charts.candidates.length === 0) {
    return placeholder('No candidate yet.');
  }
  const latest = new Map<string, ICandidatePoint>();
  for (const c of charts.candidates) {
    latest.set(c.nodeId, c);
  }
  const kids = new Map<string | null, ICandidatePoint[]>();
  for (const c of latest.values()) {
    const parent = c.parentId !== null && latest.has(c.parentId) ? c.parentId : null;
    kids.set(parent, [...(kids.get(parent) ?? []), c]);
  }
  const best = charts.bestNode;
  const seen = new Set<string>();
  let shown = 0;
  const branch = (parent: string | null): HTMLUListElement | null => {
    const items = kids.get(parent) ?? [];
    if (items.length === 0) {
      return null;
    }
    const ul = document.createElement('ul');
    for (const c of items) {
      if (shown >= maxNodes || seen.has(c.nodeId)) {
        break;
      }
      seen.add(c.nodeId);
      shown++;
      const li = document.createElement('li');
      li.className = 'mlestar-node';
      li.dataset.node = c.nodeId;
      const code = document.createElement('code');
      code.textContent = c.nodeId;
      const marks =
        (c.nodeId === best ? ' ★' : '') + (charts.chosen?.nodeId === c.nodeId ? ' ✔' : '');
      li.append(
        code,
        ` ${c.label}${c.label ? ' ' : ''}· ${c.score === null ? '✗ failed' : formatScore(c.score)}${marks}`
      );
      const sub = branch(c.nodeId);
      if (sub) {
        li.append(sub);
      }
      ul.append(li);
    }
    return ul;
  };
  const tree = document.createElement('div');
  tree.className = 'mlestar-tree';
  tree.append(branch(null) ?? placeholder('No candidate yet.'));
  return tree;
}

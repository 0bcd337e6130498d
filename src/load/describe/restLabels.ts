// The quads no description holds (the links graph, the default graph, other graphs), written in a
// canonical linear order: blank nodes named by a hash of their one-step neighbourhood, from the
// nodes already named outward, ties numbered; then the lines sorted. Linear in the nodes, so that
// a long chain of blank nodes (docs/loading.md) costs little.
import crypto from 'node:crypto';

/** A quad as the text of its terms; `g` is `''` for the default graph. */
export interface TextQuad {
  readonly s: string;
  readonly p: string;
  readonly o: string;
  readonly g: string;
}

/** Appends `value` to the list of `map` at `key`. */
export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const isBlank = (term: string): boolean => term.charCodeAt(0) === 95;

const digest = (text: string): string =>
  crypto.createHash('sha256').update(text).digest('hex').slice(0, 16);

/** How a node's neighbour is reached: `>p` out, `<p` in, and the graph. */
interface Step {
  readonly way: string;
  readonly other: string;
}

/**
 * The quads' lines (`s p o [g] .`), blank nodes relabelled and the lines sorted. `anchors` are the
 * labels blank nodes got in the descriptions (a chain continues below a description's last
 * level): they keep them. Every other blank node is named after its one-step neighbourhood (its
 * quads, other blank nodes as `_:`), reached from a named node through one way: a node reached
 * first from a named one by a way no other node with its neighbourhood is reached takes a label
 * from that; others are numbered in the order the store gave them (a tie: such structures, all
 * alike, are written the same but for the numbering).
 */
export function restLines(
  quads: readonly TextQuad[],
  anchors: ReadonlyMap<string, string>,
): string[] {
  const steps = new Map<string, Step[]>();
  const note = (node: string, way: string, other: string) => {
    if (isBlank(node) && !anchors.has(node)) push(steps, node, { way, other });
  };
  for (const q of quads) {
    note(q.s, `>${q.p} ${q.g}`, q.o);
    note(q.o, `<${q.p} ${q.g}`, q.s);
  }
  const shapes = new Map<string, string>();
  for (const [node, list] of steps) {
    const seen = list.map(
      ({ way, other }) =>
        `${way} ${other === node ? '_:self' : isBlank(other) ? (anchors.get(other) ?? '_:') : other}`,
    );
    shapes.set(node, digest(seen.sort().join('\n')));
  }
  const labels = new Map<string, string>(anchors);
  const queue: string[] = [];
  const name = (node: string, label: string) => {
    labels.set(node, label);
    queue.push(node);
  };
  // Nodes whose neighbourhood no other node has are named by it; anchors start the walk too.
  const byShape = new Map<string, string[]>();
  for (const [node, shape] of shapes) push(byShape, shape, node);
  for (const [shape, nodes] of [...byShape].sort(([a], [b]) => (a < b ? -1 : 1)))
    if (nodes.length === 1) name(nodes[0]!, `_:r${shape}`);
  queue.push(...[...anchors.keys()].sort((a, b) => (anchors.get(a)! < anchors.get(b)! ? -1 : 1)));
  // The anchors have no steps of their own: their neighbours list them, seen from the other side.
  const around = new Map(steps);
  for (const [node, list] of reverseSteps(steps, anchors)) around.set(node, list);
  walk(queue, around, shapes, labels, name);
  // What no walk reached: numbered by its neighbourhood, in the order the store gave it.
  const numbered = new Map<string, number>();
  for (const [node, shape] of shapes) {
    if (labels.has(node)) continue;
    const n = numbered.get(shape) ?? 0;
    numbered.set(shape, n + 1);
    name(node, `_:r${shape}n${n}`);
    walk(queue, around, shapes, labels, name);
  }
  const label = (term: string) => (isBlank(term) ? (labels.get(term) ?? term) : term);
  return quads
    .map((q) => `${label(q.s)} ${q.p} ${label(q.o)}${q.g === '' ? '' : ` ${q.g}`} .`)
    .sort();
}

/**
 * From each named node in `queue`, names its unnamed blank neighbours: by its label, the way and
 * the neighbour's shape, and a number among those that share all three.
 */
function walk(
  queue: string[],
  steps: ReadonlyMap<string, readonly Step[]>,
  shapes: ReadonlyMap<string, string>,
  labels: ReadonlyMap<string, string>,
  name: (node: string, label: string) => void,
): void {
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at]!;
    const from = labels.get(node)!;
    const counts = new Map<string, number>();
    for (const { way, other } of steps.get(node) ?? []) {
      if (!isBlank(other) || labels.has(other)) continue;
      const key = `${from} ${way} ${shapes.get(other)}`;
      const n = counts.get(key) ?? 0;
      counts.set(key, n + 1);
      name(other, `_:r${digest(key)}${n === 0 ? '' : `n${n}`}`);
    }
  }
  queue.length = 0;
}

/** The steps into each anchor, seen from the anchor (which has no steps of its own). */
function reverseSteps(
  steps: ReadonlyMap<string, readonly Step[]>,
  anchors: ReadonlyMap<string, string>,
): Map<string, Step[]> {
  const reverse = new Map<string, Step[]>();
  for (const [node, list] of steps)
    for (const { way, other } of list) {
      if (!anchors.has(other)) continue;
      push(reverse, other, { way: `${way[0] === '>' ? '<' : '>'}${way.slice(1)}`, other: node });
    }
  return reverse;
}

// A reader of the Prometheus text exposition format (version 0.0.4), enough to check what /metrics says.

export interface Family {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Families by name; throws on a line the format does not allow, or a sample outside a declared family. */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    const found = families.get(name) ?? { name, type: "untyped", help: "", samples: [] };
    families.set(name, found);
    return found;
  };
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === "HELP") family(meta[2]).help = meta[3];
      else family(meta[2]).type = meta[3];
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${line}`);
    const [, name, labelText = "", value] = sample;
    const owner = [name, name.replace(/_(bucket|sum|count)$/, "")].find((candidate) => families.has(candidate));
    if (!owner) throw new Error(`sample ${name} has no # TYPE line`);
    const labels = Object.fromEntries([...labelText.matchAll(LABEL)].map(([, key, raw]) => [key, raw.replace(/\\(.)/g, "$1")]));
    family(owner).samples.push({ name, labels, value: Number(value) });
  }
  return families;
}

/** The value of the sample `name` whose labels include `labels`, summed over the rest; 0 when none. */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const owner = families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, ""));
  return (owner?.samples ?? [])
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Variant strings from a family and chosen option values (docs/NOTATION.md: canonical form). */
import { type OptionValue, type VariantFamily, type VariantOption } from "@griot/client";

export type OptionChoice = bigint | boolean;

export function defaultValue(o: VariantOption): OptionChoice {
  return optionValue(o.defaultValue);
}

export function optionValue(v: OptionValue | undefined): OptionChoice {
  if (v?.value.case === "boolValue") return v.value.value;
  if (v?.value.case === "intValue") return v.value.value;
  return 0n;
}

/** An option's name as a form label: `max_turns` → `Max turns`. */
export function optionLabel(name: string): string {
  const words = name.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `id` or `id(key=value,...)` listing only non-default options, sorted by key. */
export function variantString(family: VariantFamily, chosen: ReadonlyMap<string, OptionChoice>): string {
  const parts = family.options
    .filter((o) => chosen.has(o.name) && chosen.get(o.name) !== defaultValue(o))
    .map((o) => `${o.name}=${String(chosen.get(o.name))}`)
    .sort();
  return parts.length ? `${family.id}(${parts.join(",")})` : family.id;
}

/** The values an integer option allows, when few enough for a drop-down. */
export function intChoices(o: VariantOption): bigint[] | undefined {
  if (o.allowed.case === "choices") return o.allowed.value.values;
  if (o.allowed.case === "range") {
    const { min, max } = o.allowed.value;
    if (max - min <= 40n) {
      const out: bigint[] = [];
      for (let v = min; v <= max; v++) out.push(v);
      return out;
    }
  }
  return undefined;
}

/**
 * The family id and option values a variant string names (`abapa(max_turns=10,holes=4)`), as
 * written; the inverse of {@link variantString} up to defaults. Throws on text that is not of that
 * form (the rules service is the judge of which options a family has).
 */
export function parseVariantString(text: string): { id: string; options: Map<string, string> } {
  const m = /^\s*([a-z0-9][a-z0-9-]*)\s*(?:\((.*)\))?\s*$/i.exec(text);
  if (!m) throw new Error(`not a variant string: ${JSON.stringify(text)}`);
  const options = new Map<string, string>();
  for (const part of (m[2] ?? "").split(",").filter((p) => p.trim())) {
    const [key, value, ...rest] = part.split("=").map((s) => s.trim());
    if (!key || value === undefined || value === "" || rest.length) {
      throw new Error(`option ${JSON.stringify(part)} of ${JSON.stringify(text)} is not key=value`);
    }
    options.set(key, value);
  }
  return { id: m[1], options };
}

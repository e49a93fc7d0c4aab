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

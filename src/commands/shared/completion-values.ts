import type { Option } from 'commander';

/** Values shell completion offers for an option that takes any value (its choices are only the common ones). */
const suggestions = new WeakMap<Option, readonly string[]>();

/** Marks `option` so that completion offers `values` after it; returns it. */
export function suggestValues(option: Option, values: readonly string[]): Option {
  suggestions.set(option, values);
  return option;
}

/** What completion offers after `option`: its choices, or the values suggested for it. */
export function completionValues(option: Option): readonly string[] {
  return option.argChoices ?? suggestions.get(option) ?? [];
}

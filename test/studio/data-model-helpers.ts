/** Steps the data model journeys share: opening the module, and creating a field through the field editor the way a
 * person does (from the collection's page, every control found by its label). */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

export async function openModel(page: Page, base: string, path = ''): Promise<void> {
  await page.goto(`${base}/admin/data-model${path}`);
  await page.getByRole('heading', { level: 1 }).waitFor();
}

export interface FieldSpec {
  key: string;
  /** The type's label in the Type box. */
  type: string;
  iface?: string;
  length?: string;
  precision?: string;
  scale?: string;
  required?: boolean;
  note?: string;
  width?: 'Half' | 'Full' | 'Fill';
  indexed?: boolean;
  unique?: boolean;
  automatic?: string;
  defaultOn?: boolean;
  defaultText?: string;
  choices?: [string, string][];
  defaultChoice?: string;
  display?: string;
}

/** From the collection's page (opened when not already there): Create field, fill, create, back on the list. */
export async function createFieldInUi(page: Page, base: string, collection: string, spec: FieldSpec, before?: () => Promise<void>): Promise<void> {
  if (!new URL(page.url()).pathname.endsWith(`/data-model/${collection}`)) await openModel(page, base, `/${collection}`);
  await page.getByRole('link', { name: 'Create field' }).click();
  await page.getByRole('heading', { level: 1, name: `New field in ${collection}` }).waitFor();
  await page.getByLabel('Key', { exact: true }).fill(spec.key);
  await page.getByRole('combobox', { name: 'Type', exact: true }).selectOption({ label: spec.type });
  if (spec.length) await page.getByLabel('Maximum length').fill(spec.length);
  if (spec.precision) await page.getByLabel(/^Precision/).fill(spec.precision);
  if (spec.scale) await page.getByLabel(/^Scale/).fill(spec.scale);
  if (spec.automatic) await page.getByLabel('Automatic value').selectOption({ label: spec.automatic });
  if (spec.iface) await page.getByRole('combobox', { name: 'Interface', exact: true }).selectOption({ label: spec.iface });
  for (const [i, [value, text]] of (spec.choices ?? []).entries()) {
    await page.getByRole('button', { name: '+ Add choice' }).click();
    await page.getByLabel(`Choice ${i + 1} value`).fill(value);
    await page.getByLabel(`Choice ${i + 1} text`).fill(text);
  }
  if (spec.defaultChoice) await page.getByLabel('Default value').selectOption({ label: spec.defaultChoice });
  if (spec.defaultText) await page.getByLabel('Default value').fill(spec.defaultText);
  if (spec.defaultOn) await page.getByRole('switch', { name: 'Default value' }).check();
  if (spec.display) await page.getByRole('combobox', { name: 'Display', exact: true }).selectOption({ label: spec.display });
  if (spec.unique) await page.getByRole('checkbox', { name: /^Unique/ }).check();
  if (spec.indexed) await page.getByRole('checkbox', { name: /^Indexed/ }).check();
  if (spec.required) await page.getByRole('checkbox', { name: /^Required/ }).check();
  if (spec.note) await page.getByLabel('Note', { exact: true }).fill(spec.note);
  if (spec.width) await page.getByLabel('Width').selectOption({ label: spec.width });
  if (before) await before();
  await page.getByRole('button', { name: 'Create field' }).first().click();
  await page.waitForURL((url) => url.pathname.endsWith(`/data-model/${collection}`));
  await page.getByRole('link', { name: `Edit field ${spec.key}` }).waitFor();
}

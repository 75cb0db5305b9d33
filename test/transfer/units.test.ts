/** The pure parts of import: the UTF-8 position finder, the format decisions and the CSV cell conversion. */
import { describe, expect, it } from 'vitest';
import { UnsupportedMediaTypeError } from '../../core/errors.ts';
import type { CollectionOverview, FieldOverview, FieldType } from '../../core/schema/types.ts';
import { csvRecordToPayload } from '../../core/transfer/convert.ts';
import { formatOf, rawFormatOf } from '../../core/transfer/import.ts';
import { firstInvalidUtf8 } from '../../core/transfer/utf8.ts';

describe('firstInvalidUtf8', () => {
  it.each([
    ['ascii', [0x61, 0x62], -1],
    ['two-byte é', [0x61, 0xc3, 0xa9], -1],
    ['four-byte emoji', [0xf0, 0x9f, 0x98, 0x80], -1],
    ['a sequence cut at the end (the next chunk may finish it)', [0x61, 0xe2, 0x82], -1],
    ['a lone continuation byte', [0x61, 0x80], 1],
    ['a lead byte followed by ASCII', [0x61, 0x62, 0xc3, 0x28], 2],
    ['an overlong encoding', [0xc0, 0xaf], 0],
    ['an encoded surrogate', [0x61, 0xed, 0xa0, 0x80], 1],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['0xff', [0x61, 0x62, 0x63, 0xff], 3],
  ])('%s', (_, bytes, expected) => {
    const buf = new Uint8Array(bytes);
    expect(firstInvalidUtf8(buf)).toBe(expected);
    // Agrees with the platform's own validation of a complete buffer.
    if (expected >= 0) expect(() => new TextDecoder('utf-8', { fatal: true }).decode(buf)).toThrow();
  });
});

describe('formats', () => {
  it('a file part: content type first, then the file extension', () => {
    expect(formatOf('text/csv', 'a.bin')).toBe('csv');
    expect(formatOf('text/csv; charset=utf-8', null)).toBe('csv');
    expect(formatOf('application/json', 'a.csv')).toBe('json');
    expect(formatOf('application/octet-stream', 'Export.CSV')).toBe('csv');
    expect(formatOf('text/plain', 'rows.json')).toBe('json');
    expect(() => formatOf('application/pdf', 'a.pdf')).toThrow(UnsupportedMediaTypeError);
    expect(() => formatOf(null, 'noext')).toThrow(UnsupportedMediaTypeError);
  });

  it('a raw body: only its content type, in UTF-8', () => {
    expect(rawFormatOf('text/csv')).toBe('csv');
    expect(rawFormatOf('application/json; charset=UTF-8')).toBe('json');
    expect(() => rawFormatOf('text/csv; charset=windows-1252')).toThrow(UnsupportedMediaTypeError);
    expect(() => rawFormatOf('text/plain')).toThrow(UnsupportedMediaTypeError);
    expect(() => rawFormatOf(undefined)).toThrow(UnsupportedMediaTypeError);
  });
});

function field(name: string, type: FieldType, nullable = true, alias = false): FieldOverview {
  return {
    field: name, type, dbType: null, nullable, defaultValue: null, maxLength: null, numericPrecision: null, numericScale: null,
    isPrimaryKey: false, autoIncrement: false, unique: false, special: [], alias,
  };
}

const collection: CollectionOverview = {
  collection: 'c', primary: 'id', singleton: false, folder: false, system: false, accountability: 'all', sortField: null,
  fields: Object.fromEntries([
    field('id', 'integer', false), field('s', 'string'), field('required', 'string', false), field('n', 'integer'),
    field('f', 'float'), field('b', 'boolean'), field('j', 'json'), field('tags', 'csv'), field('d', 'date'),
    field('count', 'integer', false), field('children', 'alias', true, true),
  ].map((f) => [f.field, f])),
};

describe('csvRecordToPayload', () => {
  it('converts cells per field type, passing unconvertible text on for the write validation', () => {
    expect(csvRecordToPayload(collection, {
      n: '42', f: '2.5', b: 'TRUE', j: '{"a":[1]}', tags: 'a,b', d: ' 2024-01-02 ', s: ' keep spaces ',
    }, 1)).toEqual({ n: 42, f: 2.5, b: true, j: { a: [1] }, tags: 'a,b', d: '2024-01-02', s: ' keep spaces ' });
    expect(csvRecordToPayload(collection, { n: '4.5', f: 'x', b: 'yes', tags: '["x","y"]' }, 1)).toEqual({ n: '4.5', f: 'x', b: 'yes', tags: ['x', 'y'] });
    expect(csvRecordToPayload(collection, { children: '[{"s":"a"}]' }, 1)).toEqual({ children: [{ s: 'a' }] });
  });

  it('an unquoted empty cell is null, or for NOT NULL fields "" (text) or the column default (omitted)', () => {
    expect(csvRecordToPayload(collection, { s: null, n: null, j: null, required: null, count: null }, 1)).toEqual({ s: null, n: null, j: null, required: '' });
    expect(csvRecordToPayload(collection, { s: '' }, 1)).toEqual({ s: '' });
  });

  it('names the row and field of a json cell that is not JSON', () => {
    expect(() => csvRecordToPayload(collection, { j: '{oops' }, 17)).toThrow('Invalid payload. Row 17: "j" must be valid JSON.');
  });
});

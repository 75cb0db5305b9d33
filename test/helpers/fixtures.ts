/** A small content model covering every relation kind, created directly in SQL (independent of the
 * /collections endpoints) plus seed rows:
 *   authors 1-* posts (M2O posts.author, O2M authors.posts)
 *   posts 1-* comments (O2M posts.comments, uuid keys)
 *   posts *-* tags through posts_tags (M2M posts.tags, string keys on tags)
 *   pages 1-* pages_blocks -> block_hero | block_text (M2A pages.blocks, A2O pages_blocks.item)
 *   home (singleton)
 */
import { run } from '../../core/db/database.ts';
import type { Services } from '../../core/services.ts';

const MODEL = `
create table authors (id serial primary key, name varchar(255) not null, email varchar(255) unique, bio text,
  age integer, score double precision, active boolean default true, secret varchar(255));
create table posts (id serial primary key, title varchar(255), body text, status varchar(32) default 'draft',
  views integer default 0, rating numeric(10, 2), published_on timestamptz, publish_date date, publish_time time,
  local_dt timestamp, uid uuid, labels text, meta json, big bigint,
  author integer references authors(id) on delete set null);
create table comments (id uuid primary key, post integer references posts(id) on delete cascade, text text, user_name varchar(64));
create table tags (id varchar(64) primary key, label varchar(255));
create table posts_tags (id serial primary key, posts_id integer references posts(id) on delete cascade,
  tags_id varchar(64) references tags(id) on delete cascade);
create table pages (id serial primary key, title varchar(255));
create table pages_blocks (id serial primary key, pages_id integer references pages(id) on delete cascade,
  item varchar(255), collection varchar(64));
create table block_hero (id serial primary key, headline varchar(255));
create table block_text (id serial primary key, body text);
create table home (id serial primary key, headline varchar(255));

insert into svc_collections (collection, singleton, accountability) values
  ('authors', false, 'all'), ('posts', false, 'all'), ('comments', false, 'all'), ('tags', false, 'all'),
  ('posts_tags', false, 'all'), ('pages', false, 'all'), ('pages_blocks', false, 'all'),
  ('block_hero', false, 'all'), ('block_text', false, 'all'), ('home', true, 'all');

insert into svc_fields (collection, field, special) values
  ('authors', 'posts', 'o2m'), ('authors', 'secret', 'hash'),
  ('posts', 'comments', 'o2m'), ('posts', 'tags', 'm2m'), ('posts', 'labels', 'cast-csv'), ('posts', 'meta', 'cast-json'),
  ('pages', 'blocks', 'm2a');

insert into svc_relations (many_collection, many_field, one_collection, one_field, one_collection_field, one_allowed_collections, junction_field) values
  ('posts', 'author', 'authors', 'posts', null, null, null),
  ('comments', 'post', 'posts', 'comments', null, null, null),
  ('posts_tags', 'posts_id', 'posts', 'tags', null, null, 'tags_id'),
  ('posts_tags', 'tags_id', 'tags', null, null, null, 'posts_id'),
  ('pages_blocks', 'pages_id', 'pages', 'blocks', null, null, 'item'),
  ('pages_blocks', 'item', null, null, 'collection', 'block_hero,block_text', 'pages_id');
`;

const SEED = `
insert into authors (name, email, bio, age, score, active) values
  ('Ada', 'ada@example.com', 'Mathematician and writer', 36, 9.5, true),
  ('Brian', 'brian@example.com', 'Writes about C', 80, 7.25, true),
  ('Cleo', 'cleo@example.com', null, 25, null, false);
insert into posts (title, body, status, views, rating, published_on, publish_date, publish_time, local_dt, uid, labels, meta, big, author) values
  ('Hello world', 'The first post about engines', 'published', 10, 4.50, '2024-01-01T10:00:00Z', '2024-01-01', '10:00:00', '2024-01-01T10:00:00', '6f1c4a64-3b0e-4f53-9a51-0f0a0e4f7b01', 'a,b', '{"k": 1}', 9007199254740993, 1),
  ('Second post', 'More on engines and looms', 'published', 25, 3.00, '2024-02-01T10:00:00Z', '2024-02-01', '11:30:00', '2024-02-01T10:00:00', null, 'b', '{"k": 2}', 2, 1),
  ('Draft thoughts', 'Unfinished', 'draft', 0, null, null, null, null, null, null, null, null, null, 2),
  ('C is portable', 'Portable assembly', 'published', 100, 5.00, '2024-03-01T10:00:00Z', '2024-03-01', '09:15:00', '2024-03-01T10:00:00', null, '', '[1, 2]', 3, 2),
  ('Orphan', null, 'archived', 5, 1.25, '2023-12-31T23:00:00Z', '2023-12-31', '23:00:00', '2023-12-31T23:00:00', null, null, null, null, null);
insert into comments (id, post, text, user_name) values
  ('00000000-0000-4000-8000-000000000001', 1, 'Great post', 'x'),
  ('00000000-0000-4000-8000-000000000002', 1, 'Agreed', 'y'),
  ('00000000-0000-4000-8000-000000000003', 2, 'Nice', 'x');
insert into tags (id, label) values ('news', 'News'), ('tech', 'Technology'), ('misc', 'Miscellaneous');
insert into posts_tags (posts_id, tags_id) values (1, 'news'), (1, 'tech'), (2, 'tech'), (4, 'misc');
insert into pages (title) values ('Landing'), ('About');
insert into block_hero (headline) values ('Welcome'), ('Hi there');
insert into block_text (body) values ('Some text');
insert into pages_blocks (pages_id, item, collection) values (1, '1', 'block_hero'), (1, '1', 'block_text'), (2, '2', 'block_hero');
`;

export async function createContentModel(services: Services, opts: { seed?: boolean } = {}): Promise<void> {
  await run(services.database.db, MODEL);
  if (opts.seed !== false) await run(services.database.db, SEED);
  await services.schema.invalidate();
}

/** Every svc_ table of SPEC.md > Resources, with the keys, foreign keys and indexes it names.
 * Columns beyond the spec's key fields follow Directus' system tables. */
import { sql, type Kysely } from 'kysely';

const UP = `
create table svc_folders (
  id uuid primary key,
  name varchar(255) not null,
  parent uuid references svc_folders(id) on delete set null
);

create table svc_roles (
  id uuid primary key,
  name varchar(100) not null,
  icon varchar(64) not null default 'supervised_user_circle',
  description text,
  parent uuid references svc_roles(id) on delete set null,
  admin_access boolean not null default false,
  tech_access boolean not null default false,
  app_access boolean not null default false,
  impersonate_access boolean not null default false,
  enforce_tfa boolean not null default false,
  service_account boolean not null default false,
  protected boolean not null default false
);

create table svc_users (
  id uuid primary key,
  first_name varchar(50),
  last_name varchar(50),
  email varchar(128) unique,
  password varchar(255),
  require_password_change boolean not null default false,
  location varchar(255),
  title varchar(50),
  description text,
  tags json,
  avatar uuid,
  language varchar(255),
  theme varchar(20),
  appearance varchar(20),
  tfa_secret varchar(255),
  tfa_enabled boolean not null default false,
  status varchar(16) not null default 'active',
  role uuid references svc_roles(id) on delete set null,
  token varchar(255) unique,
  last_access timestamptz,
  last_page varchar(255),
  provider varchar(128) not null default 'default',
  external_identifier varchar(255) unique,
  auth_data json,
  email_notifications boolean default true
);

create table svc_files (
  id uuid primary key,
  storage varchar(255) not null,
  filename_disk varchar(255),
  filename_download varchar(255) not null,
  title varchar(255),
  type varchar(255),
  folder uuid references svc_folders(id) on delete set null,
  uploaded_by uuid references svc_users(id) on delete set null,
  created_on timestamptz not null default now(),
  modified_by uuid references svc_users(id) on delete set null,
  modified_on timestamptz not null default now(),
  charset varchar(50),
  filesize bigint,
  width integer,
  height integer,
  duration integer,
  embed varchar(200),
  description text,
  location text,
  tags json,
  metadata json,
  focal_point_x integer,
  focal_point_y integer,
  tus_id varchar(64),
  tus_data json
);
create index svc_files_tus_id_idx on svc_files (tus_id);
create index svc_files_folder_idx on svc_files (folder);
alter table svc_users add constraint svc_users_avatar_fk foreign key (avatar) references svc_files(id) on delete set null;

create table svc_policies (
  id uuid primary key,
  name varchar(100) not null,
  icon varchar(64) not null default 'badge',
  description text,
  ip_access json,
  enforce_tfa boolean not null default false,
  admin_access boolean not null default false,
  app_access boolean not null default false
);

create table svc_permissions (
  id serial primary key,
  policy uuid not null references svc_policies(id) on delete cascade,
  collection varchar(64) not null,
  action varchar(10) not null check (action in ('create', 'read', 'update', 'delete', 'share')),
  permissions json,
  validation json,
  presets json,
  fields json
);
create index svc_permissions_policy_idx on svc_permissions (policy);
create index svc_permissions_collection_idx on svc_permissions (collection, action);

create table svc_access (
  id uuid primary key,
  role uuid references svc_roles(id) on delete cascade,
  "user" uuid references svc_users(id) on delete cascade,
  policy uuid not null references svc_policies(id) on delete cascade,
  sort integer
);
create index svc_access_role_idx on svc_access (role);
create index svc_access_user_idx on svc_access ("user");

create table svc_app_permissions (
  id serial primary key,
  policy uuid not null references svc_policies(id) on delete cascade,
  module varchar(64) not null check (module in ('workflow', 'versioning')),
  action varchar(32) not null,
  unique (policy, module, action),
  check ((module = 'workflow' and action in ('view', 'start', 'participate', 'manage'))
      or (module = 'versioning' and action in ('view', 'create', 'manage')))
);

create table svc_collections (
  collection varchar(64) primary key,
  icon varchar(64),
  note text,
  display_template varchar(255),
  hidden boolean not null default false,
  singleton boolean not null default false,
  translations json,
  archive_field varchar(64),
  archive_app_filter boolean not null default true,
  archive_value varchar(255),
  unarchive_value varchar(255),
  sort_field varchar(64),
  accountability varchar(255) default 'all',
  color varchar(255),
  item_duplication_fields json,
  sort integer,
  "group" varchar(64) references svc_collections(collection) on delete set null,
  collapse varchar(255) not null default 'open',
  preview_url varchar(255),
  versioning boolean not null default false
);

create table svc_fields (
  id serial primary key,
  collection varchar(64) not null,
  field varchar(64) not null,
  special varchar(64),
  interface varchar(64),
  options json,
  display varchar(64),
  display_options json,
  readonly boolean not null default false,
  hidden boolean not null default false,
  sort integer,
  width varchar(30) default 'full',
  translations json,
  note text,
  conditions json,
  required boolean default false,
  "group" varchar(64),
  validation json,
  validation_message text,
  unique (collection, field)
);

create table svc_relations (
  id serial primary key,
  many_collection varchar(64) not null,
  many_field varchar(64) not null,
  one_collection varchar(64),
  one_field varchar(64),
  one_collection_field varchar(64),
  one_allowed_collections text,
  junction_field varchar(64),
  sort_field varchar(64),
  one_deselect_action varchar(255) not null default 'nullify',
  unique (many_collection, many_field)
);

create table svc_versions (
  id uuid primary key,
  key varchar(64) not null,
  name varchar(255),
  collection varchar(255) not null references svc_collections(collection) on delete cascade,
  item varchar(255) not null,
  hash varchar(255),
  date_created timestamptz default now(),
  date_updated timestamptz default now(),
  user_created uuid references svc_users(id) on delete set null,
  user_updated uuid references svc_users(id),
  delta json,
  status varchar(20) not null default 'draft' check (status in ('draft', 'pending', 'approved', 'rejected')),
  unique (collection, item, key)
);
create index svc_versions_status_idx on svc_versions (status);

create table svc_activity (
  id serial primary key,
  action varchar(45) not null,
  "user" uuid,
  timestamp timestamptz not null default now(),
  ip varchar(50),
  user_agent text,
  collection varchar(64) not null,
  item varchar(255) not null,
  origin varchar(255),
  impersonated_by uuid
);
create index svc_activity_collection_item_idx on svc_activity (collection, item);
create index svc_activity_user_idx on svc_activity ("user");

create table svc_revisions (
  id serial primary key,
  activity integer not null references svc_activity(id) on delete cascade,
  collection varchar(64) not null,
  item varchar(255) not null,
  data json,
  delta json,
  parent integer references svc_revisions(id) on delete set null,
  version uuid references svc_versions(id) on delete cascade
);
create index svc_revisions_activity_idx on svc_revisions (activity);
create index svc_revisions_collection_item_idx on svc_revisions (collection, item);

create table svc_settings (
  id serial primary key,
  project_name varchar(100) not null default 'svc',
  project_url varchar(255),
  project_color varchar(255) not null default '#6644FF',
  project_logo uuid references svc_files(id) on delete set null,
  public_foreground uuid references svc_files(id) on delete set null,
  public_background uuid references svc_files(id) on delete set null,
  public_note text,
  auth_login_attempts integer default 25,
  auth_password_policy varchar(100),
  storage_asset_transform varchar(7) default 'all' check (storage_asset_transform in ('all', 'none', 'presets')),
  storage_asset_presets json,
  custom_css text,
  storage_default_folder uuid references svc_folders(id) on delete set null,
  basemaps json,
  mapbox_key varchar(255),
  module_bar json,
  project_descriptor varchar(100),
  default_language varchar(255) not null default 'en-US',
  custom_aspect_ratios json,
  public_favicon uuid references svc_files(id) on delete set null,
  default_appearance varchar(255) not null default 'auto',
  default_theme_light varchar(255),
  default_theme_dark varchar(255),
  public_registration boolean not null default false,
  public_registration_verify_email boolean not null default true,
  public_registration_role uuid references svc_roles(id) on delete set null,
  public_registration_email_filter json,
  public_role uuid references svc_roles(id) on delete set null
);

create table svc_notifications (
  id serial primary key,
  timestamp timestamptz default now(),
  status varchar(255) default 'inbox' check (status in ('inbox', 'archived')),
  recipient uuid not null references svc_users(id) on delete cascade,
  sender uuid references svc_users(id),
  subject varchar(255) not null,
  message text,
  collection varchar(64),
  item varchar(255)
);
create index svc_notifications_recipient_idx on svc_notifications (recipient, status);

create table svc_comments (
  id uuid primary key,
  collection varchar(64) not null references svc_collections(collection) on delete cascade,
  item varchar(255) not null,
  comment text not null,
  date_created timestamptz default now(),
  date_updated timestamptz default now(),
  user_created uuid references svc_users(id) on delete set null,
  user_updated uuid references svc_users(id)
);
create index svc_comments_collection_item_idx on svc_comments (collection, item);

create table svc_translations (
  id uuid primary key,
  language varchar(255) not null,
  key varchar(255) not null,
  value text not null,
  unique (language, key)
);

create table svc_shares (
  id uuid primary key,
  name varchar(255),
  collection varchar(64) not null references svc_collections(collection) on delete cascade,
  item varchar(255) not null,
  role uuid references svc_roles(id) on delete cascade,
  password varchar(255),
  user_created uuid references svc_users(id) on delete set null,
  date_created timestamptz default now(),
  date_start timestamptz,
  date_end timestamptz,
  times_used integer default 0,
  max_uses integer
);

create table svc_presets (
  id serial primary key,
  bookmark varchar(255),
  "user" uuid references svc_users(id) on delete cascade,
  role uuid references svc_roles(id) on delete cascade,
  collection varchar(64),
  search varchar(100),
  layout varchar(100) default 'tabular',
  layout_query json,
  layout_options json,
  refresh_interval integer,
  filter json,
  filters json,
  icon varchar(64) default 'bookmark',
  color varchar(255)
);

create table svc_sessions (
  token varchar(64) primary key,
  "user" uuid references svc_users(id) on delete cascade,
  expires timestamptz not null,
  ip varchar(255),
  user_agent text,
  share uuid references svc_shares(id) on delete cascade,
  origin varchar(255),
  next_token varchar(64)
);
create index svc_sessions_user_idx on svc_sessions ("user");

create table svc_extension_settings (
  id serial primary key,
  extension_key varchar(255) not null,
  name varchar(255),
  value json,
  unique (extension_key, name)
);

create table svc_extensions (
  id uuid primary key,
  enabled boolean not null default true,
  folder varchar(255) not null,
  source varchar(255) not null check (source in ('local', 'registry', 'module')),
  bundle uuid references svc_extensions(id) on delete cascade
);

create table svc_notify_settings (
  id integer primary key default 1 check (id = 1),
  email_transport varchar(32) not null default 'smtp' check (email_transport in ('smtp', 'cloud_mail', 'sendmail')),
  smtp_host varchar(255),
  smtp_port integer,
  smtp_user varchar(255),
  smtp_pass text,
  smtp_secure boolean not null default false,
  cloud_mail_region varchar(64),
  cloud_mail_access_key text,
  cloud_mail_secret_key text,
  email_from varchar(255),
  admin_emails json,
  chat_url varchar(1024),
  chat_token text,
  default_locale varchar(32) not null default 'en',
  default_channels json
);

create table svc_notify_providers (
  id serial primary key,
  name varchar(255) not null,
  channel varchar(16) not null check (channel in ('email', 'chat', 'inapp')),
  type varchar(32) check (type in ('smtp', 'cloud_mail', 'sendmail', 'gateway_mail')),
  config json,
  is_primary boolean not null default false,
  enabled boolean not null default true,
  webhook_enabled boolean not null default false,
  webhook_secret varchar(255),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index svc_notify_providers_one_primary on svc_notify_providers (channel) where is_primary;

create table svc_notify_layouts (
  id varchar(255) primary key,
  name varchar(255) not null,
  description text,
  content text not null check (position('{{{content}}}' in content) > 0),
  variables_schema json
);

create table svc_notify_templates (
  id varchar(255) primary key,
  name varchar(255) not null,
  description text,
  channels json not null default '["email"]',
  cc_admin boolean not null default false,
  variables_schema json,
  layout_id varchar(255) references svc_notify_layouts(id) on delete set null,
  status varchar(16) not null default 'draft' check (status in ('published', 'draft', 'archived')),
  is_system boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table svc_notify_template_contents (
  id serial primary key,
  template_id varchar(255) not null references svc_notify_templates(id) on delete cascade,
  provider_id integer not null references svc_notify_providers(id) on delete restrict,
  provider varchar(32),
  locale varchar(32) not null default 'default',
  subject text,
  content text not null,
  metadata json,
  active boolean not null default true,
  unique (template_id, provider_id, locale)
);

create table svc_notify_logs (
  id serial primary key,
  status varchar(16) not null default 'pending'
    check (status in ('pending', 'sending', 'sent', 'delivered', 'bounced', 'rejected', 'failed', 'cancelled')),
  template_id varchar(255) references svc_notify_templates(id) on delete set null,
  channel varchar(16) not null,
  provider_id integer references svc_notify_providers(id) on delete set null,
  provider_message_id varchar(255),
  recipients json not null,
  cc json,
  bcc json,
  locale varchar(32),
  variables json,
  subject_rendered text,
  content_rendered text,
  scheduled_at timestamptz,
  sent_at timestamptz,
  delivered_at timestamptz,
  error_message text,
  provider_response json,
  metadata json,
  attempts integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index svc_notify_logs_pending_idx on svc_notify_logs (status, scheduled_at);
create index svc_notify_logs_provider_message_idx on svc_notify_logs (provider_message_id);

create table svc_notify_delivery_events (
  id serial primary key,
  log_id integer references svc_notify_logs(id) on delete set null,
  provider_id integer references svc_notify_providers(id) on delete set null,
  provider_message_id varchar(255),
  event varchar(16) not null
    check (event in ('delivered', 'bounced', 'rejected', 'deferred', 'opened', 'clicked', 'complaint', 'unsubscribed')),
  provider_status_raw varchar(255),
  reason text,
  occurred_at timestamptz,
  received_at timestamptz not null default now(),
  provider_event_id varchar(255) unique,
  raw_payload json
);
create index svc_notify_delivery_events_log_idx on svc_notify_delivery_events (log_id);

create table svc_workflows (
  id uuid primary key,
  name varchar(255) not null,
  description text,
  collection varchar(64) not null references svc_collections(collection) on delete cascade,
  trigger_event varchar(64) not null default 'versions.submit',
  trigger_filter json,
  active boolean not null default false,
  date_created timestamptz not null default now(),
  user_created uuid references svc_users(id) on delete set null
);
create index svc_workflows_collection_idx on svc_workflows (collection, trigger_event) where active;

create table svc_workflow_steps (
  id uuid primary key,
  workflow_id uuid not null references svc_workflows(id) on delete cascade,
  key varchar(64) not null,
  name varchar(255) not null,
  type varchar(16) not null check (type in ('start', 'approval', 'condition', 'notification', 'action', 'end')),
  assign_type varchar(16) check (assign_type in ('role', 'user', 'dynamic')),
  assign_value varchar(255),
  approval_mode varchar(16) not null default 'any' check (approval_mode in ('any', 'all', 'majority')),
  sort_order integer not null default 0,
  action_type varchar(32) check (action_type in ('promote_version', 'send_notification', 'update_field')),
  action_config json,
  options json,
  timeout_minutes integer,
  timeout_action varchar(16) check (timeout_action in ('auto-approve', 'auto-reject', 'escalate', 'notify')),
  unique (workflow_id, key)
);

create table svc_workflow_transitions (
  id uuid primary key,
  workflow_id uuid not null references svc_workflows(id) on delete cascade,
  from_step_id uuid not null references svc_workflow_steps(id) on delete cascade,
  to_step_id uuid not null references svc_workflow_steps(id) on delete cascade,
  trigger varchar(16) not null check (trigger in ('approve', 'reject', 'always', 'condition')),
  condition json
);

create table svc_workflow_instances (
  id uuid primary key,
  workflow_id uuid not null references svc_workflows(id) on delete cascade,
  collection varchar(64) not null,
  item varchar(255),
  version_id varchar(255),
  status varchar(16) not null default 'running' check (status in ('running', 'approved', 'rejected', 'cancelled')),
  current_step_id uuid references svc_workflow_steps(id) on delete set null,
  started_by uuid references svc_users(id) on delete set null,
  started_at timestamptz not null default now(),
  completed_at timestamptz
);
create index svc_workflow_instances_version_idx on svc_workflow_instances (version_id);

create table svc_workflow_instance_steps (
  id uuid primary key,
  instance_id uuid not null references svc_workflow_instances(id) on delete cascade,
  step_id uuid not null references svc_workflow_steps(id) on delete cascade,
  status varchar(16) not null default 'active' check (status in ('pending', 'active', 'approved', 'rejected', 'skipped', 'timed_out', 'cancelled')),
  assignees json,
  activated_at timestamptz,
  timeout_at timestamptz,
  completed_at timestamptz,
  approvals json not null default '[]',
  result varchar(16)
);
create index svc_workflow_instance_steps_active_idx on svc_workflow_instance_steps (status, timeout_at);

create table svc_workflow_actions (
  id uuid primary key,
  instance_id uuid not null references svc_workflow_instances(id) on delete cascade,
  instance_step_id uuid references svc_workflow_instance_steps(id) on delete cascade,
  user_id uuid references svc_users(id) on delete set null,
  kind varchar(16) not null check (kind in ('approve', 'reject', 'delegate', 'comment')),
  comment text,
  to_user uuid references svc_users(id) on delete set null,
  created_at timestamptz not null default now()
);
create index svc_workflow_actions_instance_idx on svc_workflow_actions (instance_id);
`;

const TABLES = [
  'svc_workflow_actions', 'svc_workflow_instance_steps', 'svc_workflow_instances', 'svc_workflow_transitions',
  'svc_workflow_steps', 'svc_workflows', 'svc_notify_delivery_events', 'svc_notify_logs',
  'svc_notify_template_contents', 'svc_notify_templates', 'svc_notify_layouts', 'svc_notify_providers',
  'svc_notify_settings', 'svc_extensions', 'svc_extension_settings', 'svc_sessions', 'svc_presets',
  'svc_shares', 'svc_translations', 'svc_comments', 'svc_notifications', 'svc_settings', 'svc_revisions',
  'svc_activity', 'svc_versions', 'svc_relations', 'svc_fields', 'svc_collections', 'svc_app_permissions',
  'svc_access', 'svc_permissions', 'svc_policies', 'svc_users', 'svc_files', 'svc_roles', 'svc_folders',
];

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(UP).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(TABLES.map((t) => `drop table if exists ${t} cascade;`).join('\n')).execute(db);
}

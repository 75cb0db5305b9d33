/** GET /notify/channels (Admin): the static catalog of delivery channels, built from the channel registry. */
export { CHANNEL_CATALOG, type ChannelInfo } from './channels/registry.ts';

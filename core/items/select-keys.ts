export { selectKeys } from './read.ts';

/** What the update check's routes take from neighbouring contexts, through their services. */
export { getDevice } from '../devices/service';

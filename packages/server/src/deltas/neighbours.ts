/** The binaries a delta joins, read from their own context, and the schemas its answer shares with them. */
export { getBinary } from '../binaries/service';
export { BinarySize, Sha256Hex } from '../binaries/route-schemas';

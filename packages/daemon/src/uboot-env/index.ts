/** The U-Boot environment: codec (pure), locations (fw_env.config / run-time config) and file I/O. */
export { crc32 } from './crc32.ts';
export { decodeCopy, encodeCopy, EnvironmentError, type Layout } from './codec.ts';
export { formatFwEnvConfig, locationsFromConfig, LocationError, parseFwEnvConfig, type ConfiguredCopy, type EnvLocations } from './locations.ts';
export { openEnvironment, UnsupportedDeviceError, type EnvChanges, type EnvSnapshot, type UbootEnvironment } from './env-file.ts';

/** Path parameters of the legacy API's organization-scoped paths, described once. */
import { Type } from 'typebox';

export const OrgName = Type.String({ minLength: 1, maxLength: 128, description: "The organization's name (the key's own organization; any other is 404).", examples: ['default'] });
export const ProductName = Type.String({ minLength: 1, maxLength: 128, description: "The product's name.", examples: ['gateway'] });
export const DeploymentName = Type.String({ minLength: 1, maxLength: 128, description: "The deployment's name, unique within the product.", examples: ['beta'] });
export const Identifier = Type.String({ minLength: 1, maxLength: 128, description: "The device's identifier.", examples: ['gw-00042'] });
export const FirmwareUuid = Type.String({ minLength: 1, maxLength: 64, description: "The firmware's uuid (its meta-uuid).", examples: ['3c5d2a4e-8f1b-4c6d-9e7f-0a1b2c3d4e5f'] });

export const Org = { org_name: OrgName };
export const OrgProduct = { org_name: OrgName, product_name: ProductName };

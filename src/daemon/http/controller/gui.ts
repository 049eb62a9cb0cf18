import type { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import type { ApplianceCatalog } from '../../controller/appliances.js';
import type { GuiSettings } from '../../controller/gui-settings.js';
import { DEFAULT_SYMBOLS, type SymbolLibrary } from '../../controller/symbols.js';
import { route } from '../route.js';
import { GNS3VM_SETTINGS_SCHEMA, IOU_LICENSE_SCHEMA } from '../../schemas/project-extras.js';

export const SYMBOL_RAW_ROUTE = '/v2/symbols/{symbol_id:.+}/raw';

/** What the GNS3 GUI asks for when it connects: symbols, appliances, GNS3 VM and IOU licence settings. */
export function guiRoutes(router: Router, deps: { gui: GuiSettings; symbols: SymbolLibrary; appliances: ApplianceCatalog }): void {
  const { gui, symbols, appliances } = deps;
  route(router, { method: 'get', template: '/v2/symbols' }, () => symbols.list());
  route(router, { method: 'get', template: SYMBOL_RAW_ROUTE, raw: true }, async ({ params, res }) => {
    // Looked up first: a refused id's 404 must not go out as an image.
    const content = await symbols.content(params.symbol_id);
    res.status(200).type(content.type);
    if (content.svg !== undefined) res.send(content.svg);
    else await pipeline(content.file.createReadStream(), res);
  });
  route(router, { method: 'get', template: '/v2/symbols/{symbol_id:.+}/dimensions' }, ({ params }) => symbols.dimensions(params.symbol_id));
  route(router, { method: 'get', template: '/v2/default_symbols' }, () => DEFAULT_SYMBOLS);
  // The appliance files of appliances_dir (none when unset): the GUI's "Install an appliance" list.
  route(router, { method: 'get', template: '/v2/appliances' }, () => appliances.list());
  route(router, { method: 'get', template: '/v2/gns3vm' }, () => gui.getGns3vm());
  route(router, { method: 'put', template: '/v2/gns3vm', body: GNS3VM_SETTINGS_SCHEMA, status: 201 }, ({ body }) => gui.setGns3vm(body));
  route(router, { method: 'get', template: '/v2/gns3vm/engines' }, () => gui.engines());
  route(router, { method: 'get', template: '/v2/gns3vm/engines/{engine}/vms' }, ({ params }) => gui.engineVms(params.engine));
  route(router, { method: 'get', template: '/v2/iou_license' }, () => gui.getIouLicense());
  route(router, { method: 'put', template: '/v2/iou_license', body: IOU_LICENSE_SCHEMA, status: 201 }, ({ body }) => gui.setIouLicense(body));
}

import type { Router } from 'express';
import type { GuiSettings } from '../../controller/gui-settings.js';
import { BUILTIN_SYMBOLS, DEFAULT_SYMBOLS, getSymbol } from '../../controller/symbols.js';
import { route } from '../route.js';
import { GNS3VM_SETTINGS_SCHEMA, IOU_LICENSE_SCHEMA } from '../../schemas/project-extras.js';

export const SYMBOL_RAW_ROUTE = '/v2/symbols/{symbol_id:.+}/raw';

/** What the GNS3 GUI asks for when it connects: symbols, appliances, GNS3 VM and IOU licence settings. */
export function guiRoutes(router: Router, deps: { gui: GuiSettings }): void {
  const { gui } = deps;
  route(router, { method: 'get', template: '/v2/symbols' }, () => BUILTIN_SYMBOLS.map(({ symbol_id, filename, theme, builtin }) => ({ symbol_id, filename, theme, builtin })));
  route(router, { method: 'get', template: SYMBOL_RAW_ROUTE, raw: true }, ({ params, res }) => {
    // Looked up first: an unknown symbol's 404 must not go out as an image.
    const { svg } = getSymbol(params.symbol_id);
    res.status(200).type('image/svg+xml').send(svg);
  });
  route(router, { method: 'get', template: '/v2/symbols/{symbol_id:.+}/dimensions' }, ({ params }) => {
    const { width, height } = getSymbol(params.symbol_id);
    return { width, height };
  });
  route(router, { method: 'get', template: '/v2/default_symbols' }, () => DEFAULT_SYMBOLS);
  // emuctl ships no appliance files (GNS3's are its own data); the GUI takes an empty list.
  route(router, { method: 'get', template: '/v2/appliances' }, () => []);
  route(router, { method: 'get', template: '/v2/gns3vm' }, () => gui.getGns3vm());
  route(router, { method: 'put', template: '/v2/gns3vm', body: GNS3VM_SETTINGS_SCHEMA, status: 201 }, ({ body }) => gui.setGns3vm(body));
  route(router, { method: 'get', template: '/v2/gns3vm/engines' }, () => gui.engines());
  route(router, { method: 'get', template: '/v2/gns3vm/engines/{engine}/vms' }, ({ params }) => gui.engineVms(params.engine));
  route(router, { method: 'get', template: '/v2/iou_license' }, () => gui.getIouLicense());
  route(router, { method: 'put', template: '/v2/iou_license', body: IOU_LICENSE_SCHEMA, status: 201 }, ({ body }) => gui.setIouLicense(body));
}

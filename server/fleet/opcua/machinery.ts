// This winder in the OPC 40001-1 Machinery shape: a machine object under Objects/Machines with its
// Identification and MachineryItemState building blocks, and beside them the job's variables. Every
// variable is read-only; the values come from the `machine` datasource's value and nothing else.
import type * as NodeOpcua from 'node-opcua';
import type { AddressSpace, UAObject, UAStateMachineEx, UAVariable, VariantOptions } from 'node-opcua';
import type { MachineValue } from '../../gateway/realtime/machine-feed.ts';
import { fleetStatus } from '../state.ts';
import { type MachineryItemState, machineryItemState } from './item-state.ts';

export const MACHINERY_URI = 'http://opcfoundation.org/UA/Machinery/';
export const DI_URI = 'http://opcfoundation.org/UA/DI/';
/** The Machines folder's id in the Machinery namespace (OPC 40001-1). */
const MACHINES_FOLDER = 1001;

export interface MachineIdentity {
  workstationId: string;
  name: string;
  model: string;
  softwareRevision: string;
  productInstanceUri: string;
}

type Scalar = 'String' | 'Double' | 'UInt32' | 'DateTime';

/** The machine's own variables: browse name, data type, and how each is read from the value. */
const VARIABLES: readonly [string, Scalar, (machine: MachineValue) => string | number | Date | null][] = [
  ['Status', 'String', (m) => fleetStatus(m)],
  ['JobState', 'String', (m) => m.jobState],
  ['JobName', 'String', (m) => m.jobName],
  ['Progress', 'Double', (m) => m.percent],
  ['LinesSent', 'UInt32', (m) => m.linesSent],
  ['LinesTotal', 'UInt32', (m) => m.linesTotal],
  ['RemainingSeconds', 'Double', (m) => m.remainingSeconds],
  ['Layer', 'UInt32', (m) => m.layer],
  ['LayerCount', 'UInt32', (m) => m.layerCount],
  ['LastError', 'String', (m) => m.lastError],
  ['LastErrorAt', 'DateTime', (m) => (m.lastErrorAt === null ? null : new Date(m.lastErrorAt))],
];

export class MachineryModel {
  readonly machine: UAObject;
  readonly #itemState: UAStateMachineEx;
  readonly #variables: { variable: UAVariable; dataType: Scalar; read: (m: MachineValue) => unknown }[];
  readonly #dataType: typeof NodeOpcua.DataType;
  #state: MachineryItemState | null = null;

  /** `opcua` is node-opcua, loaded by the caller when the server starts. */
  constructor(
    opcua: typeof NodeOpcua,
    addressSpace: AddressSpace,
    identity: MachineIdentity,
    initial: MachineValue,
  ) {
    const { DataType, promoteToStateMachine } = opcua;
    this.#dataType = DataType;
    const own = addressSpace.getOwnNamespace();
    const machinery = namespaceOf(addressSpace, MACHINERY_URI);
    const di = namespaceOf(addressSpace, DI_URI);
    const machines = addressSpace.findNode(`ns=${machinery.index};i=${MACHINES_FOLDER}`);
    const id = (path: string) => `s=${identity.workstationId}${path}`;
    this.machine = own.addObject({
      browseName: identity.name,
      displayName: identity.name,
      nodeId: id(''),
      organizedBy: machines ?? addressSpace.rootFolder.objects,
    });

    const identification = objectType(addressSpace, 'MachineIdentificationType', machinery).instantiate({
      browseName: { name: 'Identification', namespaceIndex: di.index },
      nodeId: id('.Identification'),
      addInOf: this.machine,
      optionals: ['Model', 'SoftwareRevision'],
    });
    setProperty(identification, 'Manufacturer', {
      dataType: DataType.LocalizedText,
      value: { text: 'Towpath' },
    });
    setProperty(identification, 'Model', {
      dataType: DataType.LocalizedText,
      value: { text: identity.model },
    });
    setProperty(identification, 'SerialNumber', { dataType: DataType.String, value: identity.workstationId });
    setProperty(identification, 'SoftwareRevision', {
      dataType: DataType.String,
      value: identity.softwareRevision,
    });
    setProperty(identification, 'ProductInstanceUri', {
      dataType: DataType.String,
      value: identity.productInstanceUri,
    });

    // OPC 40001-1 §8: the building blocks a machine offers are gathered in this folder as add-ins.
    const buildingBlocks = own.addObject({
      browseName: { name: 'MachineryBuildingBlocks', namespaceIndex: di.index },
      nodeId: id('.MachineryBuildingBlocks'),
      typeDefinition: 'FolderType',
      componentOf: this.machine,
    });
    buildingBlocks.addReference({ referenceType: 'HasAddIn', nodeId: identification });
    const itemState = objectType(addressSpace, 'MachineryItemState_StateMachineType', machinery).instantiate({
      browseName: { name: 'MachineryItemState', namespaceIndex: machinery.index },
      nodeId: id('.MachineryItemState'),
      addInOf: buildingBlocks,
    });
    this.#itemState = promoteToStateMachine(itemState);

    this.#variables = VARIABLES.map(([name, dataType, read]) => ({
      variable: own.addVariable({
        browseName: name,
        nodeId: id(`.${name}`),
        componentOf: this.machine,
        dataType,
        // Read-only for everyone: the machine is driven at the workstation, never from the shop's network.
        accessLevel: 'CurrentRead',
        userAccessLevel: 'CurrentRead',
        minimumSamplingInterval: 0,
      }),
      dataType,
      read,
    }));
    this.update(initial);
  }

  /** The state's current name, e.g. `Executing`. */
  get itemState(): MachineryItemState | null {
    return this.#state;
  }

  update(machine: MachineValue): void {
    const state = machineryItemState(machine);
    if (state !== this.#state) {
      this.#itemState.setState(state);
      this.#state = state;
    }
    for (const { variable, dataType, read } of this.#variables) {
      const value = read(machine);
      // An unknown value (no job, no layer) is an empty Variant rather than a made-up number.
      variable.setValueFromSource(
        value === null ? { dataType: this.#dataType.Null } : { dataType: this.#dataType[dataType], value },
      );
    }
  }
}

interface NamespaceRef {
  index: number;
  namespaceUri: string;
}

function namespaceOf(addressSpace: AddressSpace, uri: string): NamespaceRef {
  const namespace = addressSpace.getNamespace(uri);
  if (!namespace) throw new Error(`the OPC UA nodeset for ${uri} is not loaded`);
  return namespace;
}

function objectType(addressSpace: AddressSpace, name: string, namespace: NamespaceRef) {
  const type = addressSpace.findObjectType(name, namespace.index);
  if (!type) throw new Error(`the OPC UA type ${name} is missing from ${namespace.namespaceUri}`);
  return type;
}

function setProperty(object: UAObject, name: string, value: VariantOptions): void {
  const property = object.getPropertyByName(name);
  if (!property) throw new Error(`Identification has no ${name}`);
  property.setValueFromSource(value);
}

namespace BackupXe.Core.History;

/// <summary>One history record and the instance it belongs to.</summary>
public sealed record InstanceOperation(string Instance, HistoryOperation Record);
